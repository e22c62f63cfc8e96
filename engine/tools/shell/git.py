"""git, read as git reads it: global options (`-C`, `-c key=value`), aliases (from `-c` or the repository's
configuration, shell aliases `!…` included), the commands git runs for you (`submodule foreach`,
`rebase --exec`, `bisect run`, filters), and the subcommands that throw work away however spelt.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

from engine.tools.shell.findings import Call, Code, Finding
from engine.tools.shell.options import long_matches, operands, option_value, short_letters
from engine.tools.shell.words import Word

CONFIG_LOOKUP_TIMEOUT = 3.0  # seconds `git config --get` may take before the alias counts as unknown
_SUBCOMMANDS = frozenset(
    """add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore
    check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit
    commit-graph commit-tree config count-objects credential describe diagnose diff diff-files
    diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg
    for-each-ref for-each-repo format-patch fsck gc grep hash-object help hook http-fetch http-push
    imap-send index-pack init init-db instaweb interpret-trailers log ls-files ls-remote ls-tree
    mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag
    mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune
    prune-packed pull push range-diff read-tree rebase receive-pack reflog remote repack replace
    request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack shortlog show
    show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule switch
    symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info
    upload-archive upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree
    write-tree""".split()  # noqa: SIM905
)
# `-c` settings that only change how git shows things or whom it says you are; any other one may run a
# program (core.pager, core.sshCommand, alias.*, filters…) or change what a command does.
_SAFE_CONFIG = re.compile(
    r"^(user\.\w+|color\.[\w.]+|advice\.\w+|core\.(quotepath|autocrlf|filemode|longpaths|safecrlf|ignorecase)"
    r"|init\.defaultbranch|(commit|tag)\.gpgsign|pull\.(rebase|ff)|merge\.ff|push\.(default|autosetupremote)"
    r"|fetch\.prune|log\.\w+|format\.pretty|diff\.(noprefix|renames|algorithm|colormoved)|status\.\w+"
    r"|column\.\w+|i18n\.\w+|gc\.auto|maintenance\.auto|rebase\.(autosquash|autostash)|rerere\.enabled"
    r"|safe\.directory|protocol\.version|credential\.interactive)$",
    re.IGNORECASE,
)
_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})


class GitCommand:
    """A git command line split into global options, the subcommand and its arguments."""

    def __init__(self, call: Call) -> None:
        self.call = call
        self.configs: list[Word] = []
        self.folder: Path | None = call.folder
        self.unknown = False
        self.exec_path = False
        argv = call.argv
        i = 1
        while i < len(argv):
            value = argv[i].value
            following = argv[i + 1] if i + 1 < len(argv) else None
            if value is None:
                self.unknown = True
                break
            if value in _GLOBAL_WITH_VALUE:
                if value == "-c" and following is not None:
                    self.configs.append(following)
                elif value == "-C" and following is not None:
                    base = self.folder
                    self.folder = (
                        None
                        if following.value is None or base is None
                        else Path(os.path.normpath(base / following.value))
                    )
                i += 2
                continue
            if value.startswith(("--config-env", "--exec-path=")):
                self.exec_path = True
            if not value.startswith("-"):
                break
            i += 1
        self.sub = argv[i].value if i < len(argv) else None
        self.args = argv[i + 1 :]

    def config_override(self, key: str) -> str | None:
        for word in self.configs:
            name, _, value = (word.value or "").partition("=")
            if name.lower() == key.lower():
                return value
        return None


def expand_git(call: Call, depth: int, expand) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """What a git command runs besides git itself: its aliases and the commands it is handed."""
    git = GitCommand(call)
    sub, args = git.sub, git.args
    if git.unknown or sub is None:
        return
    if sub not in _SUBCOMMANDS:
        alias = git.config_override(f"alias.{sub}")
        if alias is None:
            alias = _repository_alias(git.folder, sub)
        if alias is None:
            return
        yield Finding("git-alias", call.text(), detail=f"{sub} = {alias}")
        if alias.startswith("!"):
            yield Code("shell", alias[1:], f"git alias {sub}", call)
        elif depth < 8:
            try:
                words = [Word(part, part) for part in shlex.split(alias)]
            except ValueError:
                return
            if words and words[0].value != sub:
                yield from expand(
                    Call([call.argv[0], *words, *args], call.inv, call.via, cwd=git.folder), depth + 1
                )
        return
    if sub == "submodule" and args and args[0].value == "foreach":
        rest = [w for w in args[1:] if w.value not in ("--recursive", "-q", "--quiet")]
        if rest:
            yield _code(call, rest, "git submodule foreach")
    elif sub == "rebase":
        for word in option_value(args, "x", "exec"):
            if word is not None:
                yield _code(call, [word], "git rebase --exec")
    elif sub == "bisect" and args and args[0].value == "run" and len(args) > 1:
        yield from expand(
            Call(args[1:], call.inv, f"{call.via} git bisect run".strip(), cwd=git.folder), depth + 1
        )
    elif sub == "filter-branch":
        for i, word in enumerate(args[:-1]):
            if (word.value or "").endswith("-filter") and word.value != "--subdirectory-filter":
                yield _code(call, [args[i + 1]], f"git filter-branch {word.value}")
    elif sub == "difftool":
        for word in option_value(args, "x", "extcmd"):
            if word is not None:
                yield _code(call, [word], "git difftool --extcmd")
    elif sub == "config":
        yield from _config_write(git, expand, depth)


def _code(call: Call, words: list[Word], label: str) -> Code | Finding:
    if any(w.value is None for w in words):
        return Finding("unprovable-shell-code", call.text(), detail=label)
    return Code("shell", " ".join(w.value or "" for w in words), label, call)


def _config_write(git: GitCommand, expand, depth: int) -> Iterator[object]:  # type: ignore[no-untyped-def]
    values = [w for w in git.args if not (w.value or "").startswith("-")]
    if values and values[0].value in (
        "set",
        "unset",
        "get",
        "list",
        "edit",
        "rename-section",
        "remove-section",
    ):
        if values[0].value != "set":
            return
        values = values[1:]
    if len(values) < 2 or any(w.value is None for w in values[:2]):
        if len(values) >= 2:
            yield Finding("unprovable-argument", git.call.text(), detail="git config")
        return
    key, value = (values[0].value or "").lower(), values[1].value or ""
    if key.startswith("alias."):
        yield Finding("git-alias", git.call.text(), detail=f"defines {key}")
        if value.startswith("!"):
            yield Code("shell", value[1:], f"git alias {key[6:]}", git.call)
        elif depth < 8:
            try:
                words = [Word(p, p) for p in shlex.split(value)]
            except ValueError:
                return
            yield from expand(
                Call([git.call.argv[0], *words], git.call.inv, git.call.via, cwd=git.folder), depth + 1
            )
    elif not _SAFE_CONFIG.match(key):
        yield Finding("git-config-exec", git.call.text(), detail=key)


def _repository_alias(folder: Path | None, name: str) -> str | None:
    """The alias `name` as git would find it (the repository's, the user's and the system's settings)."""
    return _git_config(folder, "--get", f"alias.{name}")


def _git_config(folder: Path | None, *query: str) -> str | None:
    """What `git config QUERY` prints in `folder`; None when it finds nothing, fails or takes too long."""
    where = folder if folder is not None and folder.is_dir() else None
    try:
        done = subprocess.run(
            ["git", "config", *query],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=CONFIG_LOOKUP_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _forced_remote_config(folder: Path | None) -> bool:
    """True when the repository's remotes push with `+` refspecs or mirror, so a bare `git push` forces."""
    found = _git_config(folder, "--get-regexp", r"^remote\..*\.(push|mirror)$") or ""
    for line in found.splitlines():
        key, _, value = line.partition(" ")
        if (key.endswith(".push") and value.startswith("+")) or (key.endswith(".mirror") and value == "true"):
            return True
    return False


def judge_git(call: Call) -> list[Finding]:
    """Every git rule the command matches."""
    git = GitCommand(call)
    found: list[Finding] = []
    if git.unknown:
        return [Finding("unprovable-argument", call.text(), detail="git")]
    if git.exec_path:
        found.append(Finding("git-config-exec", call.text(), detail="--exec-path/--config-env"))
    for word in git.configs:
        key = (word.value or "").partition("=")[0].lower()
        if word.value is None:
            found.append(Finding("unprovable-argument", call.text(), detail="git -c"))
        elif not key.startswith("alias.") and not _SAFE_CONFIG.match(key):
            found.append(Finding("git-config-exec", call.text(), detail=key))  # an alias asks when it runs
    sub, args = git.sub, git.args
    repo = str(git.folder) if git.folder is not None else None
    judge = _SUBCOMMAND_RULES.get(sub or "")
    if judge is not None:
        found.extend(judge(git, args, repo))
    if sub in ("clone", "fetch", "pull", "ls-remote", "archive", "init", "submodule"):
        risky = any(
            long_matches(w.value or "", "upload-pack", "exec", "template", "config")
            or (w.value or "").startswith("ext::")
            for w in args
        ) or ({"u", "c"} & short_letters(args) and sub in ("clone", "fetch", "pull"))
        if risky:
            found.append(
                Finding("git-config-exec", call.text(), detail=f"git {sub} option that runs a program")
            )
    if sub in ("send-email", "imap-send"):
        found.append(Finding("exfiltration", call.text(), detail=f"git {sub}"))
    return found


def _longs(args: list[Word], *names: str) -> bool:
    return any(long_matches(w.value or "", *names) for w in args)


def _reset(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if _longs(args, "hard", "merge"):
        return [Finding("git-reset-hard", git.call.text(), target=repo)]
    return []


def _clean(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if "n" in short_letters(args) or _longs(args, "dry-run"):
        return []
    return [Finding("git-clean", git.call.text(), target=repo)]


def _push(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    letters = short_letters(args, with_value="o")
    refspecs = operands(args, "o", ("--repo", "--receive-pack", "--exec", "--push-option"))
    forced = bool(letters & {"f", "d"}) or _longs(
        args, "force", "force-with-lease", "force-if-includes", "mirror", "delete", "prune"
    )
    forced = forced or any((w.value or "").startswith(("+", ":")) for w in refspecs)
    remote = refspecs[0].value if refspecs and refspecs[0].value else "the default remote"
    if not forced and len(refspecs) <= 1 and _forced_remote_config(git.folder):
        forced = True
    if forced:
        return [Finding("git-force-push", git.call.text(), target=f"{repo}:{remote}" if repo else None)]
    if any(w.value is None for w in args):
        return [Finding("unprovable-argument", git.call.text(), detail="git push")]
    return []


def _branch(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    letters = short_letters(args)
    force = "f" in letters or _longs(args, "force")
    deleting = "d" in letters or _longs(args, "delete")
    if letters & {"D", "M", "C"} or (force and (deleting or len(operands(args)) >= 1)):
        return [Finding("git-branch-force", git.call.text(), target=repo)]
    return []


def _checkout(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    letters = short_letters(args, with_value="bB")
    values = [w.value for w in args]
    paths = operands(args, "bB", ("--orphan",))
    existing = [
        w
        for w in paths
        if w.value and git.folder is not None and (w.value == "." or (git.folder / w.value).exists())
    ]
    if letters & {"f", "B"} or _longs(args, "force", "ours", "theirs") or "--" in values or existing:
        return [Finding("git-discard", git.call.text(), target=repo)]
    return []


def _switch(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if short_letters(args, with_value="cC") & {"f", "C"} or _longs(
        args, "force", "discard-changes", "force-create"
    ):
        return [Finding("git-discard", git.call.text(), target=repo)]
    return []


def _restore(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    letters = short_letters(args, with_value="s")
    staged = "S" in letters or _longs(args, "staged")
    worktree = "W" in letters or _longs(args, "worktree")
    if staged and not worktree:
        return []
    return [Finding("git-discard", git.call.text(), target=repo)]


def _stash(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if args and args[0].value in ("drop", "clear"):
        return [Finding("git-stash-drop", git.call.text(), target=repo)]
    return []


def _rm(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if ("f" in short_letters(args) or _longs(args, "force")) and not _longs(args, "cached"):
        return [Finding("git-discard", git.call.text(), target=repo)]
    return []


def _history(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    sub = git.sub
    values = [w.value or "" for w in args]
    if sub == "update-ref":
        return [Finding("git-history", git.call.text(), target=repo)]
    if sub == "reflog" and values[:1] in (["expire"], ["delete"]):
        return [Finding("git-history", git.call.text(), target=repo)]
    if sub == "gc" and any(v.startswith("--prune") for v in values):
        return [Finding("git-history", git.call.text(), target=repo)]
    if sub in ("prune", "filter-branch"):
        return [Finding("git-history", git.call.text(), target=repo)]
    return []


def _worktree(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    values = [w.value for w in args]
    if values[:1] == ["remove"] and ("f" in short_letters(args) or _longs(args, "force")):
        return [Finding("git-discard", git.call.text(), target=repo)]
    if values[:1] == ["prune"]:
        return [Finding("git-discard", git.call.text(), target=repo)]
    return []


def _checkout_index(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if "f" in short_letters(args) or _longs(args, "force"):
        return [Finding("git-discard", git.call.text(), target=repo)]
    return []


def _submodule(git: GitCommand, args: list[Word], repo: str | None) -> list[Finding]:
    if args and args[0].value == "deinit" and ("f" in short_letters(args) or _longs(args, "force", "all")):
        return [Finding("git-discard", git.call.text(), target=repo)]
    return []


_SUBCOMMAND_RULES = {
    "reset": _reset,
    "clean": _clean,
    "push": _push,
    "branch": _branch,
    "checkout": _checkout,
    "switch": _switch,
    "restore": _restore,
    "stash": _stash,
    "rm": _rm,
    "update-ref": _history,
    "reflog": _history,
    "gc": _history,
    "prune": _history,
    "filter-branch": _history,
    "worktree": _worktree,
    "checkout-index": _checkout_index,
    "submodule": _submodule,
}
