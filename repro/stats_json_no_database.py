"""Defect: `terrace stats --json` with no games database printed the sentence
"No games played yet: there is no games database at ..." on standard output,
so a script's json.loads failed (exit status 0). Run with XDG_DATA_HOME set
to an empty scratch folder."""
import json, os, subprocess, sys, tempfile

with tempfile.TemporaryDirectory() as home:
    env = {**os.environ, "XDG_DATA_HOME": home}
    env.pop("TERRACE_DB", None)
    exe = os.path.join(os.path.dirname(sys.executable), "terrace")
    for extra in ([], ["--variant", "wood"]):
        done = subprocess.run([exe, "stats", "--json", *extra], capture_output=True, text=True, env=env)
        print(done.returncode, repr(done.stdout[:100]), repr(done.stderr[:100]))
        try:
            json.loads(done.stdout)
            print("  stdout is JSON")
        except ValueError as error:
            print("  DEFECT: stdout is not JSON:", error)
