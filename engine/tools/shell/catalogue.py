"""Every rule that can ask: what it says to the person, what approving it for the session covers, and
whether a session-wide approval is offered at all (never for what cannot be known before it runs).

`{target}` is the folder or file the rule acts on as a person reads it (`./build`, `~/.bashrc`),
`{detail}` what the rule saw (a program, a file, a snippet of code).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleText:
    description: str
    scope: str = ""  # empty: no session approval is offered for this rule
    offers_session: bool = True


_ASK_EACH_TIME = "this command only: it is asked again each time"

RULES: dict[str, RuleText] = {
    "rm-recursive": RuleText(
        "It deletes {target} recursively (`rm -r`).",
        "every `rm -r`/`rm -rf` of {target} or anything inside it",
    ),
    "rm-force": RuleText(
        "It deletes files by force (`rm -f`) in {target}.", "every `rm -f` of {target} or anything inside it"
    ),
    "rm-many": RuleText(
        "It deletes every file a glob or another command lists, under {target}.",
        "every deletion of listed files under {target}",
    ),
    "find-delete": RuleText(
        "It deletes the files `find` matches under {target}.", "every `find … -delete` under {target}"
    ),
    "shred": RuleText(
        "It overwrites files beyond recovery (`shred`) in {target}.", "every `shred` of {target} or inside it"
    ),
    "dd-write": RuleText("It writes raw bytes with `dd of=` to {target}.", "every `dd of=` to {target}"),
    "truncate": RuleText(
        "It truncates files (`truncate`) in {target}.", "every `truncate` of {target} or inside it"
    ),
    "overwrite": RuleText("It {verb} the existing file {file} with `{op}`.", "every `{op}` over {target}"),
    "chmod-recursive": RuleText(
        "It changes permissions or owners recursively (`-R`) in {target}.",
        "every recursive chmod/chown of {target}",
    ),
    "rsync-delete": RuleText(
        "It deletes files in {target} that the source lacks (`rsync --delete`).",
        "every `rsync --delete` into {target}",
    ),
    "kill-force": RuleText("It force-kills processes (`kill -9`, or every process).", "every `kill -9`"),
    "kill-by-name": RuleText("It kills processes by name (`{detail}`).", "every `killall`/`pkill`"),
    "service-stop": RuleText(
        "It stops or disables a system service (`systemctl`).", "every `systemctl stop/disable`"
    ),
    "sudo": RuleText(
        "It runs `{detail}`, with another user's (usually root's) rights.", "every command run with `sudo`"
    ),
    "sql-destroy": RuleText(
        "It drops, truncates or empties database tables ({detail}).", "every destructive SQL statement"
    ),
    "git-reset-hard": RuleText(
        "It throws away uncommitted changes (`git reset --hard`) in {target}.",
        "every `git reset --hard` in {target}",
    ),
    "git-clean": RuleText(
        "It deletes untracked files (`git clean`) in {target}.", "every `git clean` in {target}"
    ),
    "git-force-push": RuleText(
        "It rewrites or deletes history on a remote (a forced push: `-f`, `--force-with-lease`, `+refspec`, "
        "`:branch`, `--delete`, `--mirror` or `--prune`).",
        "every forced push to {remote} from {repo}",
    ),
    "git-branch-force": RuleText(
        "It deletes or overwrites a branch even if unmerged (`git branch -D`/`-f`).",
        "every forced branch change in {target}",
    ),
    "git-discard": RuleText(
        "It discards local changes (`{subject}`).", "every discarding checkout/restore in {target}"
    ),
    "git-stash-drop": RuleText(
        "It deletes stashed changes (`git stash drop/clear`).", "every `git stash drop/clear` in {target}"
    ),
    "git-history": RuleText(
        "It deletes history git could otherwise recover (refs, the reflog, unreachable objects).",
        "every history-deleting git command in {target}",
    ),
    "crontab-remove": RuleText(
        "It deletes the user's scheduled commands (`crontab -r`).", "every `crontab -r`"
    ),
    # asked every time
    "disk-format": RuleText(
        "It runs `{detail}`, which erases or repartitions storage.", offers_session=False
    ),
    "device-write": RuleText("It writes onto the device {detail}.", offers_session=False),
    "system-write": RuleText("It writes a system file ({detail}).", offers_session=False),
    "system-accounts": RuleText("It changes user accounts or passwords (`{detail}`).", offers_session=False),
    "power": RuleText("It shuts down or restarts the machine (`{detail}`).", offers_session=False),
    "fork-bomb": RuleText("It starts processes without end (a fork bomb).", offers_session=False),
    "persistence-profile": RuleText(
        "It writes a startup file ({detail}) whose code runs in every new shell or program.",
        offers_session=False,
    ),
    "persistence-path": RuleText(
        "It puts a program into a folder on the PATH ({detail}), where it can stand in for a command.",
        offers_session=False,
    ),
    "persistence-ssh": RuleText("It changes SSH access or settings ({detail}).", offers_session=False),
    "persistence-cron": RuleText("It installs commands that run on a schedule (cron).", offers_session=False),
    "persistence-schedule": RuleText(
        "It schedules commands to run later (`{detail}`).", offers_session=False
    ),
    "persistence-service": RuleText(
        "It installs or enables a service that runs later (systemd).", offers_session=False
    ),
    "persistence-git-hook": RuleText(
        "It writes a git hook ({detail}) that runs on later git commands.", offers_session=False
    ),
    "git-config-write": RuleText(
        "It writes git settings ({detail}), which can define aliases and programs git runs.",
        offers_session=False,
    ),
    "git-alias": RuleText(
        "It runs or defines a git alias ({detail}), which can run any command.", offers_session=False
    ),
    "git-config-exec": RuleText(
        "It sets git configuration that can run programs or change what git does ({detail}).",
        offers_session=False,
    ),
    "hermes-home-write": RuleText(
        "It writes into the agent's own home ({detail}): its settings, keys, memory or skills.",
        offers_session=False,
    ),
    "exfiltration": RuleText(
        "It sends local files, data or the environment to the network ({detail}).", offers_session=False
    ),
    "reverse-shell": RuleText(
        "It connects a shell or program to the network ({detail}).", offers_session=False
    ),
    "env-exec": RuleText(
        "It sets {detail}, which makes programs load and run other code.", offers_session=False
    ),
    "unprovable-command-name": RuleText(
        "It runs a program whose name is only known when it runs ({detail}).", offers_session=False
    ),
    "unprovable-argument": RuleText(
        "It runs `{detail}` with arguments only known when it runs, which could be any option.",
        offers_session=False,
    ),
    "unprovable-shell-code": RuleText(
        "It hands a shell code that is only known when it runs ({detail}).", offers_session=False
    ),
    "unprovable-script": RuleText(
        "It runs a script that is only known when it runs ({detail}).", offers_session=False
    ),
    "unprovable-write-target": RuleText(
        "It writes to a file whose name is only known when it runs ({detail}).", offers_session=False
    ),
    "eval-unprovable": RuleText(
        "It evaluates code only known when it runs ({detail}).", offers_session=False
    ),
    "download-to-shell": RuleText("It runs downloaded code ({detail}).", offers_session=False),
    "decode-to-shell": RuleText("It decodes data and runs it as code ({detail}).", offers_session=False),
    "stdin-to-shell": RuleText(
        "It runs code a shell or interpreter reads from {detail}.", offers_session=False
    ),
    "runs-written-file": RuleText(
        "It runs a file that the same command writes ({detail}).", offers_session=False
    ),
    "runs-missing-script": RuleText(
        "It runs a script that does not exist yet ({detail}).", offers_session=False
    ),
    "interpreter-shell": RuleText("Its inline code runs other programs ({detail}).", offers_session=False),
    "interpreter-delete": RuleText(
        "Its inline code deletes, moves or overwrites files ({detail}).", offers_session=False
    ),
    "interpreter-write": RuleText("Its inline code writes files ({detail}).", offers_session=False),
    "interpreter-unprovable": RuleText(
        "Its inline code reaches functions in ways no reading can follow ({detail}).", offers_session=False
    ),
    "interpreter-unparsed": RuleText("Its inline code could not be read ({detail}).", offers_session=False),
    "sed-exec": RuleText("Its sed script runs commands or writes files ({detail}).", offers_session=False),
    "unparsed": RuleText(
        "Part of it could not be parsed, so what it runs is not known ({detail}).", offers_session=False
    ),
    "too-long": RuleText("It is too long to read through ({detail}).", offers_session=False),
    "too-deep": RuleText("It nests commands deeper than can be followed ({detail}).", offers_session=False),
}


def rule_text(rule: str) -> RuleText:
    return RULES.get(rule, RuleText(f"It matches the rule `{rule}` ({{detail}}).", offers_session=False))


SESSION_NOT_OFFERED = _ASK_EACH_TIME
