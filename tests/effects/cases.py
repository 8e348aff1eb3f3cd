"""The command table: (id, command, verdict). ``pause``: the changes wait for a human;
``free``: they apply at once. Every family of the attack report is here; each row
runs for real over an overlay of the template workdir (``conftest.build_template``)."""

from __future__ import annotations

PAUSE, FREE = "pause", "free"

EMPTYING = [
    ("colon-truncate", ": > data.txt", PAUSE),
    ("bare-redirect", "> data.txt", PAUSE),
    ("sed-delete-all", "sed -i d data.txt", PAUSE),
    ("sort-o", "sort -o data.txt /dev/null", PAUSE),
    ("tee-empty", "tee data.txt < /dev/null", PAUSE),
    ("uniq-out", "uniq /dev/null data.txt", PAUSE),
    ("tar-over", "tar -cf data.txt notes.md", PAUSE),
    ("cp-devnull", "cp /dev/null data.txt", PAUSE),
    ("mv-over", "mv notes.md data.txt", PAUSE),
    ("ln-f-over", "ln -f notes.md data.txt", PAUSE),
    ("ln-sf-over", "ln -sf notes.md data.txt", PAUSE),
    ("curl-o", "curl -s -o data.txt file:///dev/null", PAUSE),
    ("venv-clear", "python3 -m venv --clear --without-pip env", PAUSE),
    ("truncate", "truncate -s 0 data.txt", PAUSE),
    ("dd-over", "dd if=/dev/null of=data.txt status=none", PAUSE),
    ("printf-empty", "printf '' > data.txt", PAUSE),
    ("cat-devnull", "cat /dev/null > data.txt", PAUSE),
    ("install-over", "install -m 644 /dev/null data.txt", PAUSE),
    ("perl-inplace", "perl -i -ne '' data.txt", PAUSE),
    ("python-open-w", "python3 -c \"open('data.txt', 'w')\"", PAUSE),
    ("find-delete", "find . -name data.txt -delete", PAUSE),
    ("xargs-rm", "echo data.txt | xargs rm", PAUSE),
    ("shred", "shred -u data.txt", PAUSE),
    ("rm-plain", "rm data.txt", PAUSE),
    ("rm-rf-folder", "rm -rf env", PAUSE),
    ("rm-glob", "rm -f *.txt", PAUSE),
    ("replace-200-lines", "sed -i 's/record/entry/' data.txt", PAUSE),
    ("head-over", "head -n 2 data.txt > d2 && mv d2 data.txt", PAUSE),
    ("awk-rewrite", "awk 'NR<3' data.txt > t && cat t > data.txt && rm t", PAUSE),
    ("binary-over", "printf 'x' > blob.bin", PAUSE),
    ("dir-replaces-file", "rm notes.md && mkdir notes.md", PAUSE),
    ("file-replaces-dir", "rm -r env && echo x > env", PAUSE),
    ("symlink-replaces-file", "rm data.txt && ln -s /etc/passwd data.txt", PAUSE),
    ("split-over", "split -n 1 notes.md data.txt && mv data.txtaa data.txt", PAUSE),
]

WRAPPERS = [
    ("ld-so", "/lib64/ld-linux-x86-64.so.2 /bin/rm data.txt", PAUSE),
    ("fakeroot", "fakeroot rm data.txt", PAUSE),
    ("valgrind", "valgrind -q rm data.txt", PAUSE),
    ("capsh", "capsh -- -c 'rm data.txt'", PAUSE),
    ("gdb-eval", "gdb -q -batch --eval-command='shell rm data.txt'", PAUSE),
    ("sg", "sg root -c 'rm data.txt'", PAUSE),
    ("env-iC", "env -iC . /bin/rm data.txt", PAUSE),
    ("npm-exec", "npm exec --offline --yes -- rm data.txt", PAUSE),
    ("nice-ionice", "nice ionice rm data.txt", PAUSE),
    ("timeout-wrap", "timeout 5 rm data.txt", PAUSE),
    ("xargs-sh", "echo data.txt | xargs -I{} sh -c 'rm {}'", PAUSE),
    ("busybox-like", "command rm data.txt", PAUSE),
    ("eval-built", "eval \"$(printf 'r%s data.txt' m)\"", PAUSE),
    ("base64-pipe", "echo cm0gZGF0YS50eHQ= | base64 -d | sh", PAUSE),
    ("hex-var", "x=$(printf '\\x72\\x6d'); $x data.txt", PAUSE),
    ("script-cmd", "script -qc 'rm data.txt' /dev/null", PAUSE),
    ("setsid-bg", "setsid sh -c 'rm data.txt'; sleep 0.2", PAUSE),
    ("nohup", "nohup rm data.txt > /dev/null 2>&1", PAUSE),
    ("exec-rm", "exec rm data.txt", PAUSE),
    ("stdbuf", "stdbuf -o0 rm data.txt", PAUSE),
]

INLINE = [
    ("python-timeit", "python3 -m timeit -n 1 -s \"import os; os.remove('data.txt')\" pass", PAUSE),
    ("perl-begin", "perl -MPOSIX -e 'BEGIN { unlink \"data.txt\" }'", PAUSE),
    ("awk-f-stdin", "echo 'BEGIN { system(\"rm data.txt\") }' | awk -f -", PAUSE),
    ("make-eval", "make --eval='x: ; rm data.txt' x", PAUSE),
    ("sqlite-shell", "sqlite3 :memory: '.shell rm data.txt'", PAUSE),
    (
        "node-import-data",
        'node --import \'data:text/javascript,import fs from "fs"; '
        'fs.unlinkSync("data.txt")\' -e 1',
        PAUSE,
    ),
    ("python-stdin", "echo \"import os; os.remove('data.txt')\" | python3 -", PAUSE),
    ("perl-e-unlink", "perl -e 'unlink q(data.txt)'", PAUSE),
    ("node-e", 'node -e \'require("fs").writeFileSync("data.txt", "")\'', PAUSE),
    ("awk-system", "awk 'BEGIN{system(\"truncate -s0 data.txt\")}'", PAUSE),
    ("vim-ex-shell", "vim -es -c '!rm data.txt' -c q", PAUSE),
    ("git-alias-shell", "git -c alias.x='!rm data.txt' x", PAUSE),
    ("find-exec", "find . -maxdepth 1 -name data.txt -exec rm {} +", PAUSE),
    ("python-shutil", "python3 -c \"import shutil; shutil.rmtree('env')\"", PAUSE),
    ("python-move-out", "python3 -c \"import shutil; shutil.move('data.txt', '/tmp/x')\"", PAUSE),
]

SCRIPTS = [
    ("makefile-run", "printf 'all:\\n\\trm data.txt\\n' > Makefile && make -s", PAUSE),
    ("makefile-only", "printf 'all:\\n\\techo hi\\n' > Makefile", PAUSE),
    (
        "npm-script",
        'echo \'{"scripts":{"x":"rm data.txt"}}\' > package.json && npm run -s x',
        PAUSE,
    ),
    ("package-json-scripts", 'echo \'{"scripts":{"test":"echo ok"}}\' > package.json', PAUSE),
    (
        "conftest-pytest",
        "echo \"import os; os.remove('data.txt')\" > conftest.py && "
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q tests >/dev/null",
        PAUSE,
    ),
    ("conftest-only", "echo 'x = 1' > tests/conftest.py", PAUSE),
    ("setup-py", "echo \"import os; os.remove('data.txt')\" > setup.py && python3 setup.py", PAUSE),
    ("setup-py-only", "echo 'print(1)' > setup.py", PAUSE),
    ("bash-stdin", "echo 'rm data.txt' > s.sh && bash < s.sh", PAUSE),
    ("sh-file", "echo 'rm data.txt' > s.sh && sh s.sh", PAUSE),
    ("ed-delete", "printf ',d\\nw\\nq\\n' | ed -s data.txt", PAUSE),
    ("ex-delete", "ex -sc '%d|x' data.txt", PAUSE),
    ("vim-delete", "vim -es -c '%d' -c 'wq' data.txt", PAUSE),
    ("workflow", "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml", PAUSE),
    ("pth-file", "mkdir -p lib && echo 'import os' > lib/evil.pth", PAUSE),
    ("env-file", "echo 'TOKEN=x' > .env", PAUSE),
    ("bashrc", "echo 'rm -rf ~' > .bashrc", PAUSE),
    ("mk-include", "echo 'x:' > rules.mk", PAUSE),
    ("chmod-setuid", "echo '#!/bin/sh' > s && chmod u+s s", PAUSE),
    ("chmod-setgid", "chmod g+s script.sh", PAUSE),
    ("pyproject", "echo '[project]' > pyproject.toml", PAUSE),
    (
        "python-script-run",
        "printf 'import os\\nos.remove(\"data.txt\")\\n' > x.py && python3 x.py",
        PAUSE,
    ),
]

GIT = [
    ("checkout-index", "git checkout-index -a -f", PAUSE),
    ("read-tree-reset", "git read-tree -u --reset HEAD", PAUSE),
    ("checkout-dot", "git checkout -- .", PAUSE),
    ("restore-wip", "git restore wip.txt", PAUSE),
    ("stash", "git stash -q", PAUSE),  # 30 draft lines leave the tree for refs/stash
    ("update-ref-back", "git update-ref refs/heads/main HEAD~1", PAUSE),
    ("update-ref-delete", "git update-ref -d refs/heads/feature", PAUSE),
    ("branch-D", "git branch -q -D feature", PAUSE),
    ("reset-soft", "git reset -q --soft HEAD~1", PAUSE),
    ("reset-hard", "git reset -q --hard HEAD", PAUSE),
    ("hookspath-config-f", "git config -f .git/config core.hooksPath hooks", PAUSE),
    ("hookspath-config", "git config core.hooksPath .githooks", PAUSE),
    (
        "hook-write",
        "echo 'rm -rf .' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        PAUSE,
    ),
    ("git-config-alias", "git config alias.st '!rm data.txt'", PAUSE),
    ("packed-refs-rewrite", "git pack-refs --all && : > .git/packed-refs", PAUSE),
    ("rm-git-objects", "rm -rf .git/objects/*", PAUSE),
    ("git-rm", "git rm -q data.txt", PAUSE),
    ("git-mv-over", "git mv -f notes.md data.txt", PAUSE),
    ("git-clean", "echo x > untracked-new && git clean -fdxq", PAUSE),
    (
        "git-filter-branch-like",
        "git update-ref refs/heads/main $(git commit-tree -m y HEAD^{tree})",
        PAUSE,
    ),
    ("info-attributes", "echo '* filter=x' > .git/info/attributes", PAUSE),
    ("git-symbolic-ref", "git symbolic-ref HEAD refs/heads/feature", FREE),
]

PRIVATE = [
    ("mv-into-state", "mv data.txt .harness/", PAUSE),
    ("mv-into-tmp", "mv data.txt /tmp/", PAUSE),
    ("mv-into-shm", "mv data.txt /dev/shm/", PAUSE),
    ("cp-tmp-rm", "cp data.txt /tmp/x && rm data.txt", PAUSE),
    ("mv-folder-tmp", "mv env /tmp/", PAUSE),
    ("mv-parent", "mv notes.md ../ 2>/dev/null || mv notes.md /tmp/", PAUSE),
    ("tar-move", "tar -cf /tmp/a.tar data.txt --remove-files", PAUSE),
    ("zip-move", "gzip data.txt && mv data.txt.gz /tmp/", PAUSE),
]

SAFE = [
    ("ls", "ls -la", FREE),
    ("cat", "cat data.txt", FREE),
    ("grep", "grep -n record data.txt", FREE),
    ("git-status", "git status --short", FREE),
    ("git-log", "git log --oneline", FREE),
    ("git-diff", "git diff --stat", FREE),
    ("git-commit", "git add -A && git commit -qm 'save wip'", FREE),
    ("git-branch-new", "git branch topic", FREE),
    ("git-checkout-b", "git checkout -q -b topic", FREE),
    # Plugin autoload off: this venv's plugins cost ~5 s a start and change no file.
    ("pytest", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q tests", FREE),
    ("new-file", "echo hello > new.txt", FREE),
    ("new-folder", "mkdir -p build/out && echo x > build/out/a", FREE),
    ("append", "echo 'record 30' >> data.txt", FREE),
    ("small-edit", "sed -i 's/^record 3$/record three/' data.txt", FREE),
    ("rename-inside", "mv notes.md docs.md", FREE),
    ("rename-folder", "mv env venv-old", FREE),
    ("copy", "cp data.txt copy.txt", FREE),
    ("chmod-x", "chmod +x script.sh", FREE),
    ("symlink-new", "ln -s data.txt link.txt", FREE),
    ("touch-existing", "touch data.txt notes.md", FREE),
    ("tmp-scratch", "echo x > /tmp/scratch && cat /tmp/scratch", FREE),
    ("create-and-remove", "echo x > t && rm t", FREE),
    ("gzip-keep", "gzip -k data.txt", FREE),
    ("python-compile", "python3 -m py_compile tests/test_ok.py", FREE),
    ("wc", "wc -l data.txt notes.md", FREE),
    ("find-list", "find . -name '*.txt' -not -path './.git/*'", FREE),
    ("head", "head -n 3 data.txt", FREE),
    ("edit-five-lines", "sed -i '1,5s/record/row/' data.txt", FREE),
]

CASES = [*EMPTYING, *WRAPPERS, *INLINE, *SCRIPTS, *GIT, *PRIVATE, *SAFE]

# The default run's sample: a few of every family (the whole table is the deep tier).
SAMPLE = frozenset(
    {
        "colon-truncate", "mv-over", "replace-200-lines", "binary-over", "ld-so", "base64-pipe",
        "perl-begin", "make-eval", "makefile-run", "bash-stdin", "chmod-setuid",
        "package-json-scripts", "checkout-index", "update-ref-back", "hookspath-config-f",
        "mv-into-state", "mv-into-tmp", "ls", "git-commit", "new-file", "small-edit", "pytest",
    }
)  # fmt: skip
