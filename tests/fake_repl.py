#!/usr/bin/env python3
"""A stand-in for the Lean REPL: speaks its JSON protocol, computes nothing.

It reads a JSON command per blank-line-terminated block on stdin and answers with a pretty-printed
JSON object followed by a blank line, like leanprover-community/repl: ``{"env": n, "messages":
[...]}`` or ``{"message": "Unknown environment."}``. It understands the shape of what the Lean
backend sends -- a header (no ``env``), a task's definitions, and batches of check snippets that
start with ``-- veriscale check N`` -- and answers each snippet on the line Lean would:

* an ``#eval`` snippet gets an info message on its ``#eval`` line (``true`` for ``decide``, ``0``
  otherwise, unless a rule says more);
* a probe snippet (a ``theorem`` then ``#print axioms``) gets ``[sorryAx]`` on its axioms line,
  i.e. "Plausible found no counterexample";
* ``#print axioms`` in any other command gets ``[propext, Classical.choice, Quot.sound]``.

Behaviour is steered by rules (``--rules FILE``: a JSON list, or ``$FAKE_REPL_RULES``). The first
rule whose ``match`` regex is found in a snippet (or, outside snippets, in the command) applies:

``value``          print this text as the #eval value (may span lines)
``output``         print this text first, as code run by #eval would (dbg_trace, panics)
``error``          an error message with this text (at the #eval/theorem line)
``counterexample`` Plausible's counterexample error (probe snippets)
``axioms``         the list ``#print axioms`` reports
``hang``           never answer
``sleep``          wait this many seconds, then answer normally
``crash``          exit with this status without answering
``huge``           a value of this many characters
``spawn``          start a child process (same process group), write its pid to this file, hang
``rlimit``         print this process's RLIMIT_AS soft limit as the value
``alloc_mb``       allocate this many MiB (dies with MemoryError under a lower RLIMIT_AS)
``noise``          print this non-JSON line on stdout before the answer
``refuse``         answer ``{"message": <text>}``
``once``           a file path: the rule applies only while the file does not exist (then creates it)

``--log FILE`` appends one JSON line per start and per command (pid, kind, env) so tests can
count imports and definition loads per process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from typing import Any

SNIPPET_MARKER = "-- veriscale check"
STANDARD_AXIOMS = ["propext", "Classical.choice", "Quot.sound"]


class FakeRepl:
    def __init__(self, rules: list[dict[str, Any]], log_path: str | None) -> None:
        self.rules = rules
        self.log_path = log_path
        self.next_env = 0
        self.pending_noise: list[str] = []
        self.log({"event": "start"})

    # ------------------------------------------------------------------------------------------

    def log(self, entry: dict[str, Any]) -> None:
        if self.log_path:
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"pid": os.getpid(), **entry}) + "\n")

    @staticmethod
    def applies(rule: dict[str, Any], text: str) -> bool:
        if not re.search(rule["match"], text, re.S):
            return False
        once = rule.get("once")
        if once:
            if os.path.exists(once):
                return False
            with open(once, "w", encoding="utf-8") as handle:
                handle.write("used\n")
        return True

    def rule_for(self, text: str) -> dict[str, Any] | None:
        for rule in self.rules:
            if "refuse" not in rule and self.applies(rule, text):
                return rule
        return None

    def process_effects(self, rule: dict[str, Any] | None) -> None:
        """Actions that affect the process rather than the answer."""
        if rule is None:
            return
        if "noise" in rule:
            self.pending_noise.append(rule["noise"])
        if "sleep" in rule:
            time.sleep(float(rule["sleep"]))
        if "alloc_mb" in rule:
            block = bytearray(int(rule["alloc_mb"]) * 1024 * 1024)
            block[::4096] = b"\1" * len(block[::4096])
        if "crash" in rule:
            sys.stdout.flush()
            os._exit(int(rule["crash"]))
        if "spawn" in rule:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
            with open(rule["spawn"], "w", encoding="utf-8") as handle:
                handle.write(str(child.pid))
            time.sleep(10**6)
        if rule.get("hang"):
            time.sleep(10**6)

    # ------------------------------------------------------------------------------------------

    @staticmethod
    def message(severity: str, line: int, data: str) -> dict[str, Any]:
        return {
            "severity": severity,
            "pos": {"line": line, "column": 0},
            "endPos": {"line": line, "column": 1},
            "data": data,
        }

    def snippet_messages(self, lines: list[str], start: int, end: int) -> list[dict[str, Any]]:
        """Messages for the snippet on (1-based) lines ``start..end`` of the command."""
        text = "\n".join(lines[start - 1 : end])
        rule = self.rule_for(text)
        self.process_effects(rule)
        rule = rule or {}

        def line_of(prefix: str) -> int | None:
            for number in range(start, end + 1):
                if lines[number - 1].startswith(prefix):
                    return number
            return None

        eval_line = line_of("#eval")
        theorem_line = line_of("theorem")
        axioms_line = line_of("#print axioms")
        messages: list[dict[str, Any]] = []
        if eval_line is not None:
            if "error" in rule:
                return [self.message("error", eval_line, rule["error"])]
            if "output" in rule:
                messages.append(self.message("info", eval_line, rule["output"]))
            if "huge" in rule:
                value = "9" * int(rule["huge"])
            elif rule.get("rlimit"):
                import resource

                value = str(resource.getrlimit(resource.RLIMIT_AS)[0])
            elif "value" in rule:
                value = rule["value"]
            else:
                value = "true" if "decide (" in lines[eval_line - 1] else "0"
            messages.append(self.message("info", eval_line, value))
            return messages
        if theorem_line is not None:
            if rule.get("counterexample"):
                messages.append(
                    self.message("error", theorem_line, "Found a counter-example!\nx := 0\nissue: False does not hold")
                )
                axioms = ["sorryAx"]
            elif "error" in rule:
                messages.append(self.message("error", theorem_line, rule["error"]))
                axioms = ["sorryAx"]
            else:
                axioms = rule.get("axioms", ["sorryAx"])
            if axioms_line is not None:
                messages.append(self.message("info", axioms_line, self.axioms_text(lines[axioms_line - 1], axioms)))
        return messages

    @staticmethod
    def axioms_text(line: str, axioms: list[str]) -> str:
        name = line.split()[-1]
        if not axioms:
            return f"'{name}' does not depend on any axioms"
        return f"'{name}' depends on axioms: [{', '.join(axioms)}]"

    def command_messages(self, cmd: str) -> list[dict[str, Any]]:
        lines = cmd.split("\n")
        starts = [number for number, line in enumerate(lines, start=1) if line.startswith(SNIPPET_MARKER)]
        if starts:
            messages = []
            bounds = [*starts, len(lines) + 1]
            for start, following in zip(bounds, bounds[1:]):
                messages.extend(self.snippet_messages(lines, start, following - 1))
            return messages
        # Definitions, compile and proof commands.
        rule = self.rule_for(cmd)
        self.process_effects(rule)
        rule = rule or {}
        messages = []
        if "error" in rule:
            line = next(
                (n for n, text in enumerate(lines, start=1) if re.search(rule["match"], text)),
                1,
            )
            messages.append(self.message("error", line, rule["error"]))
        for number, line in enumerate(lines, start=1):
            if line.startswith("#print axioms"):
                axioms = rule.get("axioms", STANDARD_AXIOMS)
                messages.append(self.message("info", number, self.axioms_text(line, axioms)))
        return messages

    # ------------------------------------------------------------------------------------------

    def answer(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict) or "cmd" not in request:
            return {"message": "Could not parse as a valid JSON command"}
        cmd = request["cmd"]
        env = request.get("env")
        if env is not None and not (isinstance(env, int) and 0 <= env < self.next_env):
            return {"message": "Unknown environment."}
        if env is None:
            kind = "header"
        elif SNIPPET_MARKER in cmd:
            kind = "checks"
        else:
            kind = "definitions"
        self.log({"event": "command", "kind": kind, "env": env, "snippets": cmd.count(SNIPPET_MARKER)})
        if env is None:
            rule = self.rule_for(cmd)
            self.process_effects(rule)
            if rule and "error" in rule:
                messages = [self.message("error", 1, rule["error"])]
            else:
                messages = []
        else:
            for rule in self.rules:
                if "refuse" in rule and self.applies(rule, cmd):
                    return {"message": rule["refuse"]}
            messages = self.command_messages(cmd)
        response: dict[str, Any] = {"env": self.next_env}
        self.next_env += 1
        if messages:
            response["messages"] = messages
        return response

    def serve(self) -> None:
        stdin = sys.stdin.buffer
        out = sys.stdout
        while True:
            block: list[str] = []
            while True:
                raw = stdin.readline()
                if not raw:
                    return  # EOF: like the REPL, end quietly
                line = raw.decode("utf-8")
                if not line.strip():
                    break
                block.append(line.rstrip("\n"))
            if not block:
                continue
            try:
                request = json.loads("".join(block))
            except json.JSONDecodeError as exc:
                response: dict[str, Any] = {"message": f"Could not parse JSON:\n{exc}"}
            else:
                response = self.answer(request)
            for noise in self.pending_noise:
                out.write(noise + "\n")
            self.pending_noise.clear()
            out.write(json.dumps(response, indent=1, ensure_ascii=False) + "\n\n")
            out.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rules", default=os.environ.get("FAKE_REPL_RULES"))
    parser.add_argument("--log", default=os.environ.get("FAKE_REPL_LOG"))
    parser.add_argument("--startup-delay", type=float, default=0.0)
    args = parser.parse_args()
    rules: list[dict[str, Any]] = []
    if args.rules:
        with open(args.rules, encoding="utf-8") as handle:
            rules = json.load(handle)
    if args.startup_delay:
        time.sleep(args.startup_delay)
    FakeRepl(rules, args.log).serve()


if __name__ == "__main__":
    main()
