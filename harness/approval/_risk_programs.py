"""Programs that are dangerous by what they are: deleters, privilege, publishing ...

Each rule takes one resolved command and returns why it is dangerous, or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.approval._risk_git import long_option
from harness.approval._risk_git import short_flag as _short_flag
from harness.approval._risk_inline import is_interpreter
from harness.shell import ResolvedCommand

__all__ = ["DOWNLOADERS", "PROGRAM_RULES", "blind_write_rule"]

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "aria2c"})
_PROGRAMS: dict[str, str] = {
    **dict.fromkeys(
        ("rm", "unlink", "rimraf", "srm", "wipe", "trash", "trash-put", "trash-rm"), "deletes files"
    ),
    "rmdir": "deletes directories",
    "shred": "destroys file contents",
    "truncate": "truncates files",
    **dict.fromkeys(
        ("sudo", "su", "doas", "pkexec", "run0", "runuser"), "runs with elevated privileges"
    ),
    **dict.fromkeys(("chmod", "chattr", "setfacl"), "changes file permissions"),
    **dict.fromkeys(("reboot", "shutdown", "poweroff", "halt"), "shuts down the machine"),
    **dict.fromkeys(("mount", "umount"), "changes mounted filesystems"),
    "blkdiscard": "destroys a device's contents",
    "systemd-run": "runs a command as a service, outside this call",
    **dict.fromkeys(("chown", "chgrp"), "changes file ownership"),
    **dict.fromkeys(("kill", "pkill", "killall", "killall5"), "kills processes"),
    "dd": "writes raw data to files or devices",
    **dict.fromkeys(("fdisk", "sfdisk", "parted", "wipefs", "mkswap"), "changes disk partitions"),
    **dict.fromkeys(("goreleaser", "semantic-release"), "publishes a release"),
    **dict.fromkeys(("at", "batch", "crontab"), "schedules commands to run after this call"),
}
_INLINE_PROGRAM_FLAGS = frozenset({"-c", "-m", "-e", "-E", "-r"})
_RELEASE_WORD = re.compile(r"(?<![a-z])(deploy|publish|release|unpublish)")
_NOT_RELEASE = frozenset({"lsb_release"})
_RELEASE_TOOLS = frozenset(
    {"make", "npm", "pnpm", "yarn", "bun", "cargo", "poetry", "uv", "hatch", "flit", "pdm",
     "rye", "fly", "flyctl", "firebase", "vercel", "netlify", "serverless", "sls", "heroku",
     "mvn", "gradle", "gradlew", "just", "task", "invoke", "rake", "dotnet", "helm", "lerna",
     "changeset", "cdk", "sam", "gcloud", "az", "eb", "nox", "tox"}
)  # fmt: skip
_RELEASE_SUBCOMMANDS = {
    "twine": {"upload"}, "docker": {"push"}, "podman": {"push"}, "gem": {"push"},
    "terraform": {"apply", "destroy"}, "pulumi": {"up", "destroy"}, "kubectl": {"apply", "delete"},
}  # fmt: skip
_UNIDENTIFIABLE = re.compile(r"/(proc/[^/]+/(exe|fd/.*|cwd/.*|root/.*)|dev/fd/.*)")
_BIN_DIR = re.compile(r"(^|/)s?bin/[^/]+$")


def _program_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    if name.startswith("mkfs"):
        return "formats a filesystem"
    if _UNIDENTIFIABLE.search(command.argv[0]):
        return "runs a program the policy cannot identify"
    return _PROGRAMS.get(name)


def _builtin_rule(command: ResolvedCommand) -> str | None:
    args = command.argv[1:]
    if command.name == "hash" and any(a.startswith("-") and "p" in a for a in args):
        return "rebinds a command name to another program (hash -p)"
    if command.name == "enable" and any(a.startswith("-") and "f" in a for a in args):
        return "loads a builtin from a shared library (enable -f)"
    return None


def _destroys_rule(command: ResolvedCommand) -> str | None:
    name, args = command.name, command.argv[1:]
    operands = [a for a in args if not a.startswith("-")]
    if name in ("cp", "install") and "/dev/null" in operands[:-1]:
        return "empties the target file"
    if name == "mv" and operands[-1:] == ["/dev/null"]:
        return "destroys the moved file"
    if name == "rsync" and any(
        long_option(a, "--delete", "--delete-before", "--delete-during", "--delete-delay",
                    "--delete-after", "--delete-excluded", "--del", "--remove-source-files")
        for a in args
    ):  # fmt: skip
        return "deletes files (rsync --delete / --remove-source-files)"
    if name in ("cp", "ln", "install") and any(_BIN_DIR.search(o) for o in operands[:-1]):
        return "copies or links a program, which could then run under another name"
    if name == "find" and any(a in ("-delete", "-fdelete") for a in args):
        return "deletes files"
    if name == "tar" and any(long_option(a, "--remove-files") for a in args):
        return "deletes the files it archives"
    if name == "zip" and any(a == "--move" or _short_flag(a, "m") for a in args):
        return "deletes the files it archives"
    if name == "ln" and "/dev/null" in operands[:-1]:
        return "replaces the target with a link to /dev/null"
    if name == "install" and any(a.startswith(("-m", "--mode")) for a in args):
        return "sets file permissions (install -m)"
    if (
        name == "git"
        and "update-index" in operands[:1]
        and any(a.startswith("--chmod") for a in args)
    ):
        return "changes file permissions (git update-index --chmod)"
    if name == "gio" and operands[:1] in (["remove"], ["trash"]):
        return "deletes files"
    if name == "fallocate" and any(
        long_option(a, "--punch-hole", "--collapse-range", "--zero-range")
        or (not a.startswith("--") and set(a[1:]) & set("pcz"))
        for a in args
        if a.startswith("-")
    ):
        return "destroys file contents"
    if name in ("docker", "podman", "nerdctl") and {"rm", "rmi", "prune", "down"} & set(
        operands[:3]
    ):
        return "deletes containers, images or volumes"
    if name in _CLOUD_TOOLS and _CLOUD_DELETES.intersection(operands[:4]):
        return "deletes cloud resources"
    if name == "gh" and operands[:2] in (["repo", "delete"], ["repo", "archive"]):
        return "deletes or archives a remote repository"
    if name in ("systemctl", "service") and _SERVICE_CHANGES.intersection(operands[:2]):
        return "stops or changes system services"
    return None


_CLOUD_TOOLS = frozenset(
    {"aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "fly", "heroku", "vercel", "netlify",
     "helm", "firebase", "wrangler", "supabase"}
)  # fmt: skip
_CLOUD_DELETES = frozenset(
    {"rm", "rb", "delete", "destroy", "remove", "uninstall", "terminate-instances",
     "delete-stack", "apps:destroy", "drop"}
)  # fmt: skip
_SERVICE_CHANGES = frozenset(
    {"stop", "disable", "mask", "kill", "reboot", "poweroff", "halt", "restart", "isolate"}
)
# Programs that write files whose names only the input knows (an archive, a patch).
_BLIND_WRITERS: dict[str, Callable[[tuple[str, ...]], bool]] = {
    "tar": lambda argv: (
        any(
            long_option(a, "--extract", "--get")
            or (not a.startswith("--") and "x" in a.lstrip("-"))
            for a in argv[1:2]
        )
        or any(long_option(a, "--extract") or _short_flag(a, "x") for a in argv[2:])
    ),
    "unzip": lambda argv: not any(a in ("-l", "-t", "-v", "-Z") for a in argv[1:]),
    "cpio": lambda argv: any(_short_flag(a, "i") or long_option(a, "--extract") for a in argv),
    "patch": lambda argv: not any(long_option(a, "--dry-run") for a in argv),
    "git": lambda argv: (
        argv[1:2] in (("apply",), ("am",))
        and not any(long_option(a, "--check", "--stat", "--numstat", "--summary") for a in argv)
    ),
}


def blind_write_rule(command: ResolvedCommand) -> str | None:
    check = _BLIND_WRITERS.get(command.name)
    if check is not None and check(command.argv):
        return "extracts or patches files whose names the policy cannot see"
    argv = command.argv
    if is_interpreter(command.name) and "-m" in argv:
        module = argv[argv.index("-m") + 1 : argv.index("-m") + 2]
        extract = any(a in ("-e", "--extract") for a in argv)
        if module in (("tarfile",), ("zipfile",)) and extract:
            return "extracts an archive whose file names the policy cannot see"
    return None


def _pipe_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    runs_code = name in ("source", ".", "eval") or is_interpreter(name)
    if runs_code and DOWNLOADERS.intersection(command.fed_by):
        return "runs a downloaded script"
    if not (is_interpreter(name) and command.upstream):
        return None
    if not _reads_program_from_stdin(command.argv):
        return None
    if DOWNLOADERS.intersection(command.upstream):
        return "runs a downloaded script piped into it"
    return "runs piped input as a program"


def _reads_program_from_stdin(argv: tuple[str, ...]) -> bool:
    for arg in argv[1:]:
        if arg in ("-", "-s"):
            return True
        if arg in _INLINE_PROGRAM_FLAGS or (_short_flag(arg, "c") and len(arg) <= 4):
            return False
        if not arg.startswith(("-", "+")):
            return False
    return True


def _release_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    if name not in _NOT_RELEASE and _RELEASE_WORD.search(name.split(".", 1)[0]):
        return "deploys or publishes"
    operands = [a.lower() for a in command.argv[1:] if not a.startswith("-")]
    if is_interpreter(name) and operands and _reads_script(command.argv):
        script = operands[0].rsplit("/", 1)[-1]
        if _RELEASE_WORD.search(script):
            return "runs a deploy or release script"
    if name in _RELEASE_TOOLS and any(_RELEASE_WORD.match(a) for a in operands[:3]):
        return "deploys or publishes"
    if name == "gh" and operands[:1] == ["release"] and operands[1:2] != ["list"]:
        return "publishes a release"
    if operands and operands[0] in _RELEASE_SUBCOMMANDS.get(name, ()):
        return "deploys or publishes"
    return None


def _reads_script(argv: tuple[str, ...]) -> bool:
    return not any(a in _INLINE_PROGRAM_FLAGS or _short_flag(a, "c") for a in argv[1:])


PROGRAM_RULES: tuple[Callable[[ResolvedCommand], str | None], ...] = (
    _program_rule,
    _builtin_rule,
    _destroys_rule,
    _pipe_rule,
    _release_rule,
)
