"""Start a terrace command with default signal handling (a background job of a
non-interactive shell ignores SIGINT), send a signal after a delay and report
exit status, time to exit, stdout head and stderr.

usage: python repro/sig_harness.py INT|TERM DELAY terrace-args...
"""
import os, signal, subprocess, sys, time

sig = getattr(signal, "SIG" + sys.argv[1])
delay = float(sys.argv[2])
args = sys.argv[3:]
exe = os.path.join(os.path.dirname(sys.executable), "terrace")
def reset():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
p = subprocess.Popen([exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=reset)
time.sleep(delay)
p.send_signal(sig)
t = time.perf_counter()
out, err = p.communicate(timeout=120)
print(f"SIG{sys.argv[1]} rc={p.returncode} exit after {time.perf_counter()-t:.2f}s; stdout={out[:120]!r}")
print("stderr:", err.decode()[-1500:])
