"""Helpers shared by the checkers of Tests/live/run.sh and Tests/probe/run.sh (stdlib only).

  sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
  from checks import say, seconds  # noqa: E402

say: prints the `ok ...` / `FAIL ...` line that run.sh counts (run_py_checks in
Tests/lib/netns.sh); seconds: a JSON time as Unix seconds.
"""
import datetime


def say(good, text, detail=""):
    """Prints `ok TEXT` or `FAIL TEXT (DETAIL)`; returns good."""
    print(("ok " if good else "FAIL ") + text + ("" if good or not detail else f" ({detail})"), flush=True)
    return good


def seconds(t):
    """A time as float Unix seconds: None, a number, or an ISO 8601 / RFC 3339 string (any fraction digits).

    None gives None; anything else unreadable raises ValueError.
    """
    if t is None:
        return None
    if isinstance(t, (int, float)) and not isinstance(t, bool):
        return float(t)
    if isinstance(t, str):
        s = t.strip()
        tz = datetime.timezone.utc
        if s.endswith("Z"):
            s = s[:-1]
        elif len(s) > 6 and s[-6] in "+-" and s[-3] == ":":
            sign = 1 if s[-6] == "+" else -1
            tz = datetime.timezone(sign * datetime.timedelta(hours=int(s[-5:-3]), minutes=int(s[-2:])))
            s = s[:-6]
        frac = 0.0
        if "." in s:
            s, f = s.split(".", 1)
            frac = float("0." + f) if f else 0.0
        base = datetime.datetime.strptime(s.replace(" ", "T"), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=tz)
        return base.timestamp() + frac
    raise ValueError(f"unreadable time {t!r}")
