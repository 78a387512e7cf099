-- !benchmark @start import type=solution

-- !benchmark @end import

-- !benchmark @start solution_aux

-- !benchmark @end solution_aux

-- !benchmark @start precond_aux

-- !benchmark @end precond_aux

@[reducible, simp]
def countEvens_precond (xs : List Nat) : Prop :=
  -- !benchmark @start precond
  True
  -- !benchmark @end precond


-- !benchmark @start code_aux

-- !benchmark @end code_aux


def countEvens (xs : List Nat) (h_precond : countEvens_precond (xs)) : Nat :=
  -- !benchmark @start code
  xs.foldl (fun acc x => if x % 2 = 0 then acc + 1 else acc) 0
  -- !benchmark @end code


-- !benchmark @start postcond_aux

-- !benchmark @end postcond_aux


@[reducible, simp]
def countEvens_postcond (xs : List Nat) (result : Nat) (h_precond : countEvens_precond (xs)) : Prop :=
  -- !benchmark @start postcond
  result = xs.countP (fun x => x % 2 == 0)
  -- !benchmark @end postcond


-- !benchmark @start proof_aux

-- !benchmark @end proof_aux


theorem countEvens_spec_satisfied (xs : List Nat) (h_precond : countEvens_precond (xs)) :
    countEvens_postcond (xs) (countEvens (xs) h_precond) h_precond := by
  -- !benchmark @start proof
  sorry
  -- !benchmark @end proof
