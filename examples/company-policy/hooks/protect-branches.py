#!/usr/bin/env python3
"""PreToolUse hook (Claude Code protocol): no force-push to a protected branch, no deleting one.

Reads the hook's JSON on stdin. For a Bash call whose command runs `git push`, it works out which
branches the push would rewrite or delete:
  - `--force`, `-f` (also inside clusters like `-fu`), `--force-with-lease`, `--force-if-includes`,
    `--mirror`, or a refspec starting with `+` rewrite history;
  - `--delete`, `-d`, or a refspec `:branch` delete a branch;
and with no refspec the push goes to the current branch (asked from git in the call's folder).
A protected branch is `main`, `master`, `release/*` or `prod*`, or any name listed one per line
in the file named by the environment variable COMPANY_PROTECTED_BRANCHES (if set).

Answers: exit 2 with the reason on stderr (the model sees it) to block; a JSON `ask` when the
command hides what it runs (`eval`, `bash -c`, `$(...)`, a variable as the program) and mentions
a push; exit 0 otherwise. Any crash exits 1, which Airlock treats as a failed hook: the call is
denied (fail closed).
"""
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys

PROTECTED = ["main", "master", "release/*", "prod*"]
FORCE_LONG = {"--force", "--force-with-lease", "--force-if-includes", "--mirror"}
DELETE_LONG = {"--delete"}
# git's own options that take a value as the next word: `git -C dir push`.
GIT_VALUE_OPTIONS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
# push options that take a value as the next word (so the value is not read as a refspec).
PUSH_VALUE_OPTIONS = {"--repo", "--receive-pack", "--exec", "-o", "--push-option", "--signed", "--recurse-submodules"}
WRAPPERS = {"sudo", "env", "command", "nice", "nohup", "time", "timeout", "exec", "builtin", "doas"}
SEPARATORS = {"&&", "||", ";", "|", "&", "|&", "(", ")", "{", "}", "!", "\n"}
HIDDEN = re.compile(r"\$\(|`|\beval\b|\b(?:ba|da|z|k)?sh\s+-\w*c\b|\bxargs\b|\$\{?[A-Za-z_]")


def protected_names():
    names = list(PROTECTED)
    extra = os.environ.get("COMPANY_PROTECTED_BRANCHES")
    if extra:
        with open(extra, encoding="utf-8") as f:
            names += [line.strip() for line in f if line.strip() and not line.startswith("#")]
    return names


def is_protected(branch, names):
    return any(fnmatch.fnmatchcase(branch, n) for n in names)


def simple_commands(command):
    """Split a command line into simple commands (lists of words), at shell operators."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    current, out = [], []
    for word in lexer:
        if word in SEPARATORS or set(word) <= set(";&|()"):
            if current:
                out.append(current)
            current = []
        else:
            current.append(word)
    if current:
        out.append(current)
    return out


def push_args(words):
    """The words after `push` when this simple command is `git … push …`, else None."""
    i = 0
    while i < len(words) and (words[i] in WRAPPERS or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[i]) or (i > 0 and words[i - 1] == "timeout")):
        i += 1
    if i >= len(words) or os.path.basename(words[i]) != "git":
        return None
    i += 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in GIT_VALUE_OPTIONS else 1
    if i >= len(words) or words[i] != "push":
        return None
    return words[i + 1 :], git_dir(words)


def git_dir(words):
    for j, w in enumerate(words[:-1]):
        if w == "-C":
            return words[j + 1]
    return None


def current_branch(cwd):
    try:
        out = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10)
    except OSError:
        return None
    return out.stdout.strip() or None


# Earlier commands of the same line that change which repository or branch "the current branch"
# means by the time the push runs (the hook reads it before anything runs).
MOVES_HEAD = {"checkout", "switch", "branch", "worktree", "symbolic-ref", "update-ref"}


def moves_head(words):
    name = os.path.basename(words[0]) if words else ""
    if name in {"cd", "pushd", "popd"}:
        return True
    if name != "git":
        return False
    rest = [w for w in words[1:] if not w.startswith("-")]
    return bool(rest) and rest[0] in MOVES_HEAD


def judge_push(args, cwd, names, head_may_move=False):
    """The reason to block this push, or None."""
    force = delete = every = False
    operands = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1 :]
            break
        if a.startswith("--"):
            name = a.split("=", 1)[0]
            force |= name in FORCE_LONG
            delete |= name in DELETE_LONG
            every |= name in {"--all", "--branches", "--mirror"}
            if name in PUSH_VALUE_OPTIONS and "=" not in a:
                i += 1
        elif a.startswith("-") and len(a) > 1:
            force |= "f" in a[1:]
            delete |= "d" in a[1:]
            if a in PUSH_VALUE_OPTIONS:
                i += 1
        else:
            operands.append(a)
        i += 1
    refspecs = operands[1:]
    targets = []
    if every and (force or delete):
        return "a forced push of every branch (--all, --branches, --mirror) would rewrite the protected ones too; push the branches you mean by name"
    if not refspecs and (force or delete) and head_may_move:
        return "this command line changes folder or branch before a forced push that names no branch, so which branch it rewrites cannot be told in advance; name the branch explicitly (git push --force origin my-branch)"
    if not refspecs:
        branch = current_branch(cwd)
        # Not on a branch, or git cannot tell: judge it as the worst case only when forcing.
        targets.append((branch or "(the current branch)", force, delete))
        if branch is None and (force or delete):
            return "git push --force/--delete without a branch name, and the current branch could not be read; name the branch explicitly"
    for spec in refspecs:
        plus = spec.startswith("+")
        spec = spec.lstrip("+")
        src, _, dst = spec.partition(":")
        if spec.startswith(":"):
            targets.append((dst, False, True))
            continue
        if dst == "":
            dst = current_branch(cwd) if src == "HEAD" else src
        targets.append((dst or "", force or plus, delete))
    for branch, forced, deleted in targets:
        branch = re.sub(r"^refs/heads/", "", branch)
        if branch and is_protected(branch, names):
            if deleted:
                return f"deleting the protected branch '{branch}' is not allowed; ask a maintainer to do it"
            if forced:
                return f"force-pushing to the protected branch '{branch}' rewrites shared history and is not allowed; push a new branch and open a pull request instead"
    return None


def main():
    event = json.load(sys.stdin)
    if event.get("hook_event_name") != "PreToolUse" or event.get("tool_name") != "Bash":
        return 0
    command = str((event.get("tool_input") or {}).get("command", ""))
    cwd = event.get("cwd") or os.getcwd()
    try:
        commands = simple_commands(command)
    except ValueError:
        commands = None
    # Quotes and backslashes can split the word (`pu\sh`, `"pu"sh`): look at the words too.
    mentions_push = "push" in command or any("push" in w for ws in commands or [] for w in ws)
    if not mentions_push:
        return 0
    names = protected_names()
    if commands is None or HIDDEN.search(command):
        print(json.dumps({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "this command mentions a push but hides what it runs (eval, sh -c, $(...), a variable, or unbalanced quotes); a person should look at it",
        }}))
        return 0
    for n, words in enumerate(commands):
        found = push_args(words)
        if found is None:
            continue
        args, where = found
        head_may_move = any(moves_head(earlier) for earlier in commands[:n])
        reason = judge_push(args, os.path.join(cwd, where) if where else cwd, names, head_may_move)
        if reason:
            print(f"Blocked by the company policy hook: {reason}.", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
