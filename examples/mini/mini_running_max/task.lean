-- !benchmark @start import type=solution

-- !benchmark @end import

-- !benchmark @start solution_aux

-- !benchmark @end solution_aux

-- !benchmark @start precond_aux

-- !benchmark @end precond_aux

@[reducible, simp]
def runningMax_precond (a : Array Int) : Prop :=
  -- !benchmark @start precond
  True
  -- !benchmark @end precond


-- !benchmark @start code_aux

-- !benchmark @end code_aux


def runningMax (a : Array Int) (h_precond : runningMax_precond (a)) : Array Int :=
  -- !benchmark @start code
  Id.run do
    let mut out : Array Int := #[]
    let mut best : Int := 0
    for x in a do
      if out.isEmpty then
        best := x
      else if best < x then
        best := x
      out := out.push best
    return out
  -- !benchmark @end code


-- !benchmark @start postcond_aux

-- !benchmark @end postcond_aux


@[reducible, simp]
def runningMax_postcond (a : Array Int) (result : Array Int) (h_precond : runningMax_precond (a)) : Prop :=
  -- !benchmark @start postcond
  result.size = a.size ∧
  (∀ i < a.size, ∀ j < i + 1, a[j]! ≤ result[i]!) ∧
  (∀ i < a.size, result[i]! = a[i]! ∨ (0 < i ∧ result[i]! = result[i - 1]!))
  -- !benchmark @end postcond


-- !benchmark @start proof_aux

-- !benchmark @end proof_aux


theorem runningMax_spec_satisfied (a : Array Int) (h_precond : runningMax_precond (a)) :
    runningMax_postcond (a) (runningMax (a) h_precond) h_precond := by
  -- !benchmark @start proof
  sorry
  -- !benchmark @end proof
