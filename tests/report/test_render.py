"""The report page is filled without jinja2 (its import was ~30 ms of every run): the page must be byte for byte
what jinja2 rendered from the same template, hostile run names included."""
from __future__ import annotations

import pytest

from genevals.report import render as page


def _jinja2_page(data, connect_src="'none'"):
    """The page as render() made it with jinja2 before (the code as it was, kept here as the reference)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    script = "(function () {\n\"use strict\";\n" + "\n".join(page._asset(f) for f in page.JS_FILES) + "\n})();\n"
    css = "\n".join(page._asset(f) for f in page.CSS_FILES)
    import base64
    import hashlib

    script_hash = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = ("default-src 'none'; script-src 'sha256-" + script_hash + "'; style-src 'unsafe-inline'; "
           "img-src data:; font-src 'none'; connect-src " + connect_src + "; base-uri 'none'; form-action 'none'")
    env = Environment(loader=FileSystemLoader(str(page.HERE)), autoescape=select_autoescape(["html"]))
    names = [run["name"] for run in data["runs"]]
    return env.get_template("template.html").render(
        csp=Markup(csp), css=Markup(css), script=Markup(script), data=Markup(page.embed_json(data)),
        title="genevals report - " + ", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
        subtitle=" vs ".join(names) if len(names) > 1 else names[0],
    )


@pytest.mark.parametrize("names", [
    ["latest"],
    ["a & b <script>alert('x')</script>", 'say "hi"', "{{ data }}", "{{ title }} & more"],
    ["r1", "r2"],
])
@pytest.mark.parametrize("connect_src", ["'none'", "'self'"])
def test_the_page_is_what_jinja2_rendered(names, connect_src):
    data = {"runs": [{"name": n} for n in names], "note": "</script><!-- & {{ csp }}"}
    ours = page.render(data, connect_src)
    assert ours == _jinja2_page(data, connect_src)


def test_a_run_that_renders_its_report_never_imports_jinja2():
    import subprocess
    import sys

    code = ("import sys\nfrom genevals.report import render\n"
            "render.render({'runs': [{'name': 'x'}]})\nprint('jinja2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
