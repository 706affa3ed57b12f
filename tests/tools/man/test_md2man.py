#!/usr/bin/env python3
"""Unit cases of tools/man/md2man.py (ctest man.md2man): the escaping, the
block structure and the section selection, each on a small markdown text,
and the whole of a page through groff (no warnings).

    test_md2man.py TOOLS_MAN_DIR [unittest arguments]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1))
import md2man  # noqa: E402


def page(body, **kw):
    args = dict(name="t", section="1", description="a test")
    args.update(kw)
    return md2man.convert("# t — test\n\n" + body, **args)


def body_lines(roff):
    """The page's lines after NAME's."""
    lines = roff.splitlines()
    return lines[lines.index(".SH NAME") + 2:]


class Escaping(unittest.TestCase):
    def test_leading_dot_and_quote(self):
        # a line of text that starts with "." or "'" would be a roff request
        out = body_lines(page(".hidden files and\n'quoted' words\n"))
        self.assertIn("\\&.hidden files and 'quoted' words", out)
        for line in out:
            self.assertFalse(line.startswith(".hidden"), line)

    def test_leading_dot_after_filling(self):
        # a word starting with "." that lands at the start of an output line
        words = "word " * 15 + ".profile"
        out = body_lines(page(words + "\n"))
        starts = [l for l in out if "profile" in l]
        self.assertTrue(starts and all(not l.startswith(".profile") for l in starts), out)

    def test_backslashes(self):
        out = "\n".join(body_lines(page("a \\ b and `C:\\dir\\n` and \\*not emphasis\\*\n")))
        self.assertIn("a \\e b", out)
        self.assertIn("\\fBC:\\edir\\en\\fR", out)  # literal in code, no \n escape
        self.assertIn("*not emphasis*", out)
        self.assertNotIn("\\fInot", out)

    def test_code_hyphens_and_quotes(self):
        out = "\n".join(body_lines(page("Use `--acct=off` or `it's`.\n")))
        self.assertIn("\\fB\\-\\-acct=off\\fR", out)
        self.assertIn("it\\(aqs", out)

    def test_option_in_text(self):
        out = "\n".join(body_lines(page("pass --budget or -p, a well-known word\n")))
        self.assertIn("\\-\\-budget", out)
        self.assertIn("\\-p,", out)
        self.assertIn("well-known", out)

    def test_non_ascii(self):
        roff = page("x — y ≤ 2³¹ and t₀ …\n")
        roff.encode("ascii")  # all ASCII
        self.assertIn("\\[u2014]", roff)
        self.assertIn("\\[u2264]", roff)
        self.assertIn("2^31", roff)
        self.assertIn("t_0", roff)
        self.assertIn("...", roff)

    def test_emphasis_and_links(self):
        md2man.LINKS.clear()
        md2man.LINKS["rules.md"] = "acct-rules(5)"
        try:
            out = "\n".join(body_lines(page(
                "**bold** *it* snake_case a*b [see](rules.md#x), [rules.md](rules.md), "
                "docs/rules.md and [web](https://example.org)\n")))
        finally:
            md2man.LINKS.clear()
        self.assertIn("\\fBbold\\fR", out)
        self.assertIn("\\fIit\\fR", out)
        self.assertIn("snake_case a*b", out)
        self.assertIn("see (\\fBacct\\-rules\\fR(5))", out)
        self.assertEqual(out.count("\\fBacct\\-rules\\fR(5)"), 3, out)
        self.assertIn("web <https://example.org>", out)


class Blocks(unittest.TestCase):
    def test_code_block(self):
        out = body_lines(page("Text:\n\n```sh\n.dotfile --x \\n\n\n  'q'\n```\n\nAfter.\n"))
        i = out.index(".nf")
        self.assertEqual(out[i + 1:i + 5], ["\\&.dotfile \\-\\-x \\en", "\\&", "  \\(aqq\\(aq", ".fi"])
        self.assertEqual(out[-2:], [".PP", "After."])

    def test_fence_hides_headings(self):
        roff = page("```\n# not a heading\n## nor this\n```\n")
        self.assertNotIn(".SH \"NOR THIS\"", roff)
        self.assertIn("# not a heading", roff)

    def test_indented_code(self):
        out = body_lines(page("Para.\n\n    optional x.so a=b\n\nMore.\n"))
        self.assertIn(".nf", out)
        self.assertIn("optional x.so a=b", out)

    def test_table(self):
        out = body_lines(page("| key | default | meaning |\n|---|---|---|\n"
                              "| `a\\|b` | `1` | the a |\n| c | - | the c |\n"))
        self.assertEqual(out, [".SH DESCRIPTION", ".TP", "\\fBa|b\\fR (\\fIdefault\\fR: \\fB1\\fR)",
                               "the a", ".TP", "c", "the c"])

    def test_table_header_markdown(self):
        out = "\n".join(body_lines(page("| c | *m* is | what |\n|---|---|---|\n| x | y | z |\n")))
        self.assertIn("x (\\fI\\fIm\\fR is\\fR: y)", out)
        self.assertNotIn("*", out)

    def test_lists(self):
        out = body_lines(page("1. one\n   more\n2. two:\n   - inner\n\n     inner para\n3. three\n"))
        self.assertEqual(out, [".SH DESCRIPTION", ".IP 1. 4", "one more", ".IP 2. 4", "two:",
                               ".RS", ".IP \\(bu 2", "inner", ".IP", "inner para", ".RE",
                               ".IP 3. 4", "three"])


class Sections(unittest.TestCase):
    DOC = ("Intro.\n\n## Options\n\nopts\n\n## Synopsis\n\n```\nt [-x]\n```\n\n"
           "## Description\n\nMore.\n\n### Detail\n\nd\n\n## Tests\n\nt\n\n### Sub\n\ns\n")

    def test_order(self):
        roff = page(self.DOC)
        heads = [l for l in roff.splitlines() if l.startswith((".SH", ".SS"))]
        self.assertEqual(heads, [".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SS \"Detail\"",
                                 ".SH \"OPTIONS\"", ".SH \"TESTS\"", ".SS \"Sub\""])
        self.assertLess(roff.index("Intro."), roff.index("More."))

    def test_skip_and_only(self):
        roff = page(self.DOC, skip=["Tests"])
        self.assertNotIn("TESTS", roff)
        self.assertNotIn("\ns\n", roff)
        roff = page(self.DOC, only=["Options"])
        self.assertIn("opts", roff)
        self.assertNotIn("SYNOPSIS", roff)
        self.assertIn("Intro.", roff)

    def test_unknown_section_refused(self):
        with self.assertRaises(md2man.Md2ManError):
            page(self.DOC, skip=["Testing"])
        with self.assertRaises(md2man.Md2ManError):
            page(self.DOC, only=["Nope"])

    def test_skip_markers(self):
        roff = page("Kept.\n\n<!-- man:skip -->\nDeveloper notes.\n<!-- man:end -->\n\nAlso kept.\n")
        self.assertIn("Kept.", roff)
        self.assertIn("Also kept.", roff)
        self.assertNotIn("Developer", roff)
        with self.assertRaises(md2man.Md2ManError):
            page("<!-- man:skip -->\nnever ended\n")

    def test_rename_and_see_also(self):
        roff = page("## Environment variables\n\nx\n", rename=[("Environment variables", "ENVIRONMENT")],
                    see_also=["acctd(8)", "acct-rules(5)"])
        self.assertIn(".SH \"ENVIRONMENT\"", roff)
        self.assertTrue(roff.endswith(".SH \"SEE ALSO\"\n.BR acctd (8),\n.BR acct\\-rules (5)\n"))


@unittest.skipUnless(shutil.which("groff"), "groff not installed")
class Groff(unittest.TestCase):
    def test_no_warnings(self):
        roff = page("Intro with `code`, **b**, *i*.\n\n## Synopsis\n\n```\nt [--x]\n```\n\n"
                    + Sections.DOC.split("## Options", 1)[1].join(["## Options", ""])
                    + "\n| a | b |\n|---|---|\n| `x` | y |\n\n1. l\n   - m\n",
                    see_also=["acctd(8)"])
        with tempfile.NamedTemporaryFile("w", suffix=".1", delete=False) as f:
            f.write(roff)
        try:
            r = subprocess.run(["groff", "-man", "-ww", "-z", "-Tutf8", f.name],
                               capture_output=True, text=True)
        finally:
            os.unlink(f.name)
        self.assertEqual((r.returncode, r.stderr), (0, ""))


class Cli(unittest.TestCase):
    def test_main_writes_and_fails(self):
        d = tempfile.mkdtemp()
        try:
            src = os.path.join(d, "x.md")
            with open(src, "w") as f:
                f.write("# x\n\nText.\n\n## Tests\n\nt\n")
            out = os.path.join(d, "x.1")
            self.assertEqual(md2man.main([src, "-o", out, "--name", "x", "--section", "1",
                                          "--description", "d", "--skip", "Tests"]), 0)
            with open(out) as f:
                self.assertIn(".TH \"X\" 1", f.read())
            self.assertEqual(md2man.main([src, "-o", out + "2", "--name", "x", "--section", "1",
                                          "--description", "d", "--skip", "Nope"]), 1)
            self.assertFalse(os.path.exists(out + "2"))
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
