"""Runs the built analyser the way a user would, as an unprivileged user
when the tests run as root (tshark run as root ignores the plugin it is
given), on copies of the captures that user can read."""
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
AS_USER = os.path.join(HERE, "..", "as-user")


class Analyser:
    def __init__(self, binary):
        self.binary = os.path.abspath(binary)
        self.tmp = tempfile.mkdtemp(prefix="meterscope-test-")
        os.chmod(self.tmp, 0o777)
        self.home = os.path.join(self.tmp, "home")
        os.mkdir(self.home)
        os.chmod(self.home, 0o777)
        # The build tree may sit where that user cannot reach (/root): copy it.
        self.exe = os.path.join(self.tmp, "meterscope")
        self.plugin = os.path.join(self.tmp, "meterscope.so")
        shutil.copy(self.binary, self.exe)
        shutil.copy(os.path.join(os.path.dirname(self.binary), "..", "plugin", "meterscope.so"), self.plugin)
        for f in (self.exe, self.plugin):
            os.chmod(f, 0o755)

    def copy(self, path, name=None):
        dst = os.path.join(self.tmp, name or os.path.basename(path))
        shutil.copy(path, dst)
        os.chmod(dst, 0o644)
        return dst

    def command(self, args, plugin=True, env=()):
        """The command line that runs the analyser as that user; env: more
        VAR=VALUE settings for it."""
        return ([AS_USER, "HOME=" + self.home] + list(env) + [self.exe] +
                (["--plugin", self.plugin] if plugin else []) + args)

    def run(self, args, plugin=True, timeout=None, env=()):
        return subprocess.run(self.command(args, plugin, env), capture_output=True, text=True, cwd=self.tmp,
                              timeout=timeout)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def prefs_args(truth):
    out = []
    for p in truth.get("wireshark_prefs", []):
        out += ["-O", p]
    return out
