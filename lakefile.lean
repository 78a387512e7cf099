import Lake
open Lake DSL

/-!
The Lean package the VeriScale Lean backend runs in (`veriscale setup-lean` prepares it).

* Toolchain: `lean-toolchain` pins Lean 4 v4.24.0; every dependency below is pinned to the tag
  released for that toolchain, so `lake exe cache get` finds Mathlib's prebuilt `.olean` files.
* Plausible is required directly (not only through Mathlib) because the backend's fallback for
  undecidable propositions imports it on its own, also for tasks that do not import Mathlib.
  Lake gives the root package's pin precedence over Mathlib's; both name the v4.24.0 release.
* The REPL (leanprover-community/repl) is the process the backend talks to: `lake build repl`
  builds `.lake/packages/REPL/.lake/build/bin/repl`, which is then started with `lake env` so it
  sees this package's search path.
-/

package veriscale

require mathlib from git
  "https://github.com/leanprover-community/mathlib4" @ "v4.24.0"

require plausible from git
  "https://github.com/leanprover-community/plausible" @ "v4.24.0"

require REPL from git
  "https://github.com/leanprover-community/repl" @ "v4.24.0"

@[default_target]
lean_lib VeriScale where
  srcDir := "lean"
