"""`herald doctor --app`: the provider of a running `herald up` checks the demo app's sealed credentials; the command
prints the checks as doctor does and exits 0, or 1 naming an app the provider does not have."""
import os
import pathlib
import subprocess

from test_live_activity import call

ROOT = pathlib.Path(__file__).resolve().parents[2]


def doctor(herald, app):
    binary = os.environ.get("HERALD_BIN", str(ROOT / ".build" / "debug" / "herald"))
    token_file = pathlib.Path(herald["data"]) / "provider" / "admin-token"
    return subprocess.run([binary, "doctor", "--app", app, "--provider", herald["base"],
                           "--provider-token-file", str(token_file)],
                          capture_output=True, text=True, timeout=60)


def test_doctor_app_checks_the_providers_credentials(herald):
    admin = (pathlib.Path(herald["data"]) / "provider" / "admin-token").read_text().strip()
    app = call("GET", f"{herald['base']}/v1/apps", admin)[1][0]["id"]
    result = doctor(herald, app)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"herald doctor: app {app} of {herald['base']}" in result.stdout, result.stdout
    assert "✓ credentials" in result.stdout and "✓ clock" in result.stdout, result.stdout
    missing = doctor(herald, "app_nosuchapp")
    assert missing.returncode == 1 and "answered 404" in missing.stdout + missing.stderr, missing
    assert "no app with id app_nosuchapp" in missing.stdout + missing.stderr, missing
