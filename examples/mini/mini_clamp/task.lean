-- !benchmark @start import type=solution

-- !benchmark @end import

-- !benchmark @start solution_aux

-- !benchmark @end solution_aux

-- !benchmark @start precond_aux

-- !benchmark @end precond_aux

@[reducible, simp]
def clampToRange_precond (x : Int) (lo : Int) (hi : Int) : Prop :=
  -- !benchmark @start precond
  lo ≤ hi
  -- !benchmark @end precond


-- !benchmark @start code_aux

-- !benchmark @end code_aux


def clampToRange (x : Int) (lo : Int) (hi : Int) (h_precond : clampToRange_precond (x) (lo) (hi)) : Int :=
  -- !benchmark @start code
  if x < lo then lo
  else if hi < x then hi
  else x
  -- !benchmark @end code


-- !benchmark @start postcond_aux

-- !benchmark @end postcond_aux


@[reducible, simp]
def clampToRange_postcond (x : Int) (lo : Int) (hi : Int) (result : Int) (h_precond : clampToRange_precond (x) (lo) (hi)) : Prop :=
  -- !benchmark @start postcond
  lo ≤ result ∧ result ≤ hi ∧
  (lo ≤ x ∧ x ≤ hi → result = x) ∧
  (x < lo → result = lo) ∧
  (hi < x → result = hi)
  -- !benchmark @end postcond


-- !benchmark @start proof_aux

-- !benchmark @end proof_aux


theorem clampToRange_spec_satisfied (x : Int) (lo : Int) (hi : Int) (h_precond : clampToRange_precond (x) (lo) (hi)) :
    clampToRange_postcond (x) (lo) (hi) (clampToRange (x) (lo) (hi) h_precond) h_precond := by
  -- !benchmark @start proof
  sorry
  -- !benchmark @end proof
