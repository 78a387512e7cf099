/-
VeriScale's Lean library root.

It defines nothing: its job is to make `lake build` fetch and build everything the backend's
checks import, so that the REPL can load them without compiling anything at check time.

* `Plausible` -- the fallback for propositions that `decide` cannot evaluate;
* `Mathlib`   -- imported by some benchmark tasks (`Nat.Prime`, `List.sublists`, ...).

The backend does not import this module: each check environment imports exactly the task's own
imports plus `Plausible`.
-/
import Plausible
import Mathlib
