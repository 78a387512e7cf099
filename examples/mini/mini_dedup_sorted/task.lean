-- !benchmark @start import type=solution

-- !benchmark @end import

-- !benchmark @start solution_aux

-- !benchmark @end solution_aux

-- !benchmark @start precond_aux

-- !benchmark @end precond_aux

@[reducible, simp]
def dedupSorted_precond (xs : List Int) : Prop :=
  -- !benchmark @start precond
  List.Pairwise (· ≤ ·) xs
  -- !benchmark @end precond


-- !benchmark @start code_aux
-- Keeps the elements of a sorted list that differ from the element kept before them.
def dedupSortedFrom (prev : Int) : List Int → List Int
  | [] => []
  | x :: rest => if x = prev then dedupSortedFrom prev rest else x :: dedupSortedFrom x rest
-- !benchmark @end code_aux


def dedupSorted (xs : List Int) (h_precond : dedupSorted_precond (xs)) : List Int :=
  -- !benchmark @start code
  match xs with
  | [] => []
  | x :: rest => x :: dedupSortedFrom x rest
  -- !benchmark @end code


-- !benchmark @start postcond_aux

-- !benchmark @end postcond_aux


@[reducible, simp]
def dedupSorted_postcond (xs : List Int) (result : List Int) (h_precond : dedupSorted_precond (xs)) : Prop :=
  -- !benchmark @start postcond
  List.Pairwise (· < ·) result ∧
  (∀ x ∈ xs, x ∈ result) ∧
  (∀ x ∈ result, x ∈ xs)
  -- !benchmark @end postcond


-- !benchmark @start proof_aux

-- !benchmark @end proof_aux


theorem dedupSorted_spec_satisfied (xs : List Int) (h_precond : dedupSorted_precond (xs)) :
    dedupSorted_postcond (xs) (dedupSorted (xs) h_precond) h_precond := by
  -- !benchmark @start proof
  sorry
  -- !benchmark @end proof
