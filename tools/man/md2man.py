#!/usr/bin/env python3
"""md2man: one of ACCT's markdown pages (docs/*.md) as a man(7) page.

The docs are the one source of the man pages (docs/files.md, "Man pages"):
tools/man/CMakeLists.txt runs this at build time for every row of its page
table. Only the markdown the docs use is understood:

- "# TITLE" (the first line), "## SECTION", "### SUBSECTION" (and deeper);
- paragraphs, "- "/"* " and "1. " lists (nested by indentation, with
  paragraphs and code blocks inside items), fenced (``` or ~~~) and
  indented (4 spaces) code blocks, pipe tables;
- inline `code`, **bold**, *italic*, [links](target), backslash escapes.

The page is NAME (from --name and --description), SYNOPSIS (the md's
"Synopsis" section, if any), DESCRIPTION (the text before the first "##"
heading, then the md's "Description" section, if any), the other sections
in the md's order, and SEE ALSO (--see-also). --only and --skip choose
sections by their heading text (markdown removed), a "##" section with its
subsections; a name that is not a heading of the page is an error, so a
renamed heading cannot silently change a man page. Text between
"<!-- man:skip -->" and "<!-- man:end -->" (lines of their own; invisible
on GitHub) is left out of the man page.

Tables become tagged paragraphs (.TP): the first cell is the tag, the
middle cells "header: value" lines, the last cell the text. Everything is
ASCII on output: other characters become groff's \\[uXXXX], so the page
renders the same with or without preconv.
"""

import argparse
import re
import sys

SKIP_BEGIN = "<!-- man:skip -->"
SKIP_END = "<!-- man:end -->"

FENCE_RE = re.compile(r"^( *)(```+|~~~+)\s*([\w+-]*)\s*$")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LIST_RE = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( +)(.*)$")
TABLE_SEP_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")

# Markdown's backslash escapes; while inline markup is parsed they stand for
# themselves as private-use characters, so "\*" is never emphasis.
MD_ESCAPABLE = "\\`*_{}[]()#+-.!|<>~\"'"
PRIVATE = 0xE000


class Md2ManError(Exception):
    pass


# ---- escaping ---------------------------------------------------------------

def _char(c, literal):
    """One character as roff input text. literal: inside code (a hyphen is
    a minus, quotes are the ASCII ones)."""
    o = ord(c)
    if PRIVATE <= o < PRIVATE + 128:  # an escaped markdown character
        c = chr(o - PRIVATE)
        o = ord(c)
        literal = True
    if c == "\\":
        return "\\e"
    if c == "-":
        return "\\-" if literal else "-"
    if literal and c == "'":
        return "\\(aq"
    if literal and c == "`":
        return "\\(ga"
    if literal and c == "^":
        return "\\(ha"
    if literal and c == "~":
        return "\\(ti"
    if c == "\t":
        return " "
    if o < 32 or o == 127:
        raise Md2ManError("control character U+%04X in the text" % o)
    if o > 126:
        return "\\[u%04X]" % o
    return c


def escape(text, literal=False):
    """Plain text as roff input (no markup)."""
    return "".join(_char(c, literal) for c in text)


def _protect_escapes(text):
    return re.sub(r"\\([%s])" % re.escape(MD_ESCAPABLE),
                  lambda m: chr(PRIVATE + ord(m.group(1))), text)


# md page -> man page ("rules.md" -> "acct-rules(5)"), set by --link
LINKS = {}


def _man_ref(page):
    m = re.match(r"^(.*)\((\w+)\)$", page)
    return "\\fB" + escape(m.group(1), literal=True) + "\\fR(" + m.group(2) + ")"


def _doc_mentions(text):
    """Plain mentions of a linked page ("docs/rules.md") name its man page."""
    if not LINKS:
        return _emphasis(text)
    names = "|".join(re.escape(k) for k in sorted(LINKS, key=len, reverse=True))
    out = []
    pos = 0
    for m in re.finditer(r"(?<![\w/.-])(?:docs/)?(%s)(?![\w-])" % names, text):
        out.append(_emphasis(text[pos:m.start()]))
        out.append(_man_ref(LINKS[m.group(1)]))
        pos = m.end()
    out.append(_emphasis(text[pos:]))
    return "".join(out)


def _text_run(text):
    """Markdown outside code spans: links, bold, italic, option hyphens."""
    out = []
    pos = 0
    # [text](target): the text only; ![alt](image): the alt text; a link to
    # a page that is a man page: its name, "text (name(N))" if the text says
    # something else.
    for m in re.finditer(r"!?\[([^\]]*)\]\(([^)\s]*)\)", text):
        out.append(_doc_mentions(text[pos:m.start()]))
        label, target = m.group(1), m.group(2)
        page = target.split("#", 1)[0]
        page = page[5:] if page.startswith("docs/") else page
        if page in LINKS:
            if label.strip("`") in (page, "docs/" + page):
                out.append(_man_ref(LINKS[page]))
            else:
                out.append(_doc_mentions(label) + " (" + _man_ref(LINKS[page]) + ")")
        else:
            out.append(_doc_mentions(label))
            if re.match(r"https?://", target):
                out.append(" <" + escape(target, literal=True) + ">")
        pos = m.end()
    out.append(_doc_mentions(text[pos:]))
    return "".join(out)


def _emphasis(text):
    parts = []
    pos = 0
    pat = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
    for m in pat.finditer(text):
        parts.append(_plain(text[pos:m.start()]))
        if m.group(1) is not None:
            parts.append("\\fB" + _plain(m.group(1)) + "\\fR")
        else:
            parts.append("\\fI" + _plain(m.group(2)) + "\\fR")
        pos = m.end()
    parts.append(_plain(text[pos:]))
    return "".join(parts)


def _plain(text):
    # An option in running text ("--acct=off", "-p") gets real minus signs.
    out = []
    for i, c in enumerate(text):
        if c == "-" and (text[i + 1:i + 2] == "-" or (i > 0 and text[i - 1] == "-")
                         or ((i == 0 or not text[i - 1].isalnum()) and text[i + 1:i + 2].isalpha())):
            out.append("\\-")
        else:
            out.append(_char(c, False))
    return "".join(out)


def inline(text):
    """One paragraph's markdown (lines joined) as roff input."""
    out = []
    text = _protect_escapes(text)
    pos = 0
    for m in re.finditer(r"(`+)(.+?)\1(?!`)", text, re.S):
        out.append(_text_run(text[pos:m.start()]))
        code = m.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        # inside code a backslash is literal: "\\X" stays two characters
        code = "".join("\\" + chr(ord(c) - PRIVATE) if PRIVATE <= ord(c) < PRIVATE + 128 else c
                       for c in code)
        out.append("\\fB" + escape(code, literal=True) + "\\fR")
        pos = m.end()
    out.append(_text_run(text[pos:]))
    return "".join(out)


def fill_lines(roff, width=78):
    """Break one paragraph of roff input into source lines at blanks; a line
    that would start with a control character gets a zero-width \\&."""
    lines = []
    cur = ""
    for word in roff.split():
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = word if not cur else cur + " " + word
    if cur:
        lines.append(cur)
    return [safe_line(line) for line in lines]


def safe_line(line):
    if line.startswith((".", "'")):
        return "\\&" + line
    return line


def macro_arg(roff):
    """An argument of a macro line: quoted, with inner quotes escaped."""
    return '"' + roff.replace('"', '\\(dq') + '"'


# ---- block structure --------------------------------------------------------

class Section:
    def __init__(self, level, title, raw_title):
        self.level = level
        self.title = title          # markdown removed, for --only/--skip
        self.raw_title = raw_title  # as written
        self.lines = []


def plain_title(raw):
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    t = re.sub(r"(`+)(.+?)\1", r"\2", t)
    t = t.replace("**", "").replace("\\", "")
    return t.strip()


def split_sections(lines):
    """(title line, intro lines, [Section]) of a markdown page, with the
    man:skip regions and other HTML comment lines removed."""
    title = None
    intro = []
    sections = []
    fence = None
    skipping = False
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n").rstrip()
        if fence is None:
            if line.strip() == SKIP_BEGIN:
                if skipping:
                    raise Md2ManError("line %d: %s inside a skipped region" % (n, SKIP_BEGIN))
                skipping = True
                continue
            if line.strip() == SKIP_END:
                if not skipping:
                    raise Md2ManError("line %d: %s without %s" % (n, SKIP_END, SKIP_BEGIN))
                skipping = False
                continue
        if skipping:
            continue
        m = FENCE_RE.match(line)
        if m and (fence is None or (m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence)
                                    and not m.group(3))):
            fence = m.group(2) if fence is None else None
        elif fence is None:
            if re.match(r"^\s*<!--.*-->\s*$", line):
                continue
            h = HEADING_RE.match(line)
            if h:
                level = len(h.group(1))
                if level == 1:
                    if title is not None or sections or any(x.strip() for x in intro):
                        raise Md2ManError("line %d: a second \"#\" title" % n)
                    title = h.group(2)
                    continue
                sections.append(Section(level, plain_title(h.group(2)), h.group(2)))
                continue
        (sections[-1].lines if sections else intro).append(line)
    if skipping:
        raise Md2ManError("%s without %s" % (SKIP_BEGIN, SKIP_END))
    if fence is not None:
        raise Md2ManError("a code block is not closed")
    return title, intro, sections


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def split_cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    cells = re.split(r"(?<!\\)\|", row)
    # GFM: "\|" is a "|" of the cell, in code spans too
    return [c.strip().replace("\\|", "|") for c in cells]


def parse_blocks(lines):
    """Blocks of a run of markdown lines: ("para", text), ("code", [lines]),
    ("table", header, rows), ("list", ordered, [(marker, [blocks])])."""
    blocks = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        m = FENCE_RE.match(line)
        if m:
            ind = len(m.group(1))
            fence = m.group(2)
            code = []
            i += 1
            while i < n:
                f = FENCE_RE.match(lines[i])
                if f and f.group(2)[0] == fence[0] and len(f.group(2)) >= len(fence) and not f.group(3):
                    break
                code.append(lines[i][ind:] if indent_of(lines[i]) >= ind else lines[i].lstrip(" "))
                i += 1
            i += 1  # the closing fence
            blocks.append(("code", code))
            continue
        if indent_of(line) >= 4:
            code = []
            while i < n and (indent_of(lines[i]) >= 4 or not lines[i].strip()):
                code.append(lines[i][4:])
                i += 1
            while code and not code[-1].strip():
                code.pop()
            blocks.append(("code", code))
            continue
        if line.lstrip().startswith("|") and i + 1 < n and TABLE_SEP_RE.match(lines[i + 1]):
            header = split_cells(line)
            rows = []
            i += 2
            while i < n and lines[i].lstrip().startswith("|"):
                rows.append(split_cells(lines[i]))
                i += 1
            blocks.append(("table", header, rows))
            continue
        if LIST_RE.match(line):
            i = parse_list(lines, i, blocks)
            continue
        para = []
        while i < n and lines[i].strip():
            if para and (FENCE_RE.match(lines[i]) or LIST_RE.match(lines[i])
                         or lines[i].lstrip().startswith("|")):
                break
            para.append(lines[i].strip())
            i += 1
        blocks.append(("para", " ".join(para)))
    return blocks


def parse_list(lines, i, blocks):
    first = LIST_RE.match(lines[i])
    base = len(first.group(1))
    ordered = first.group(2)[0].isdigit()
    items = []
    n = len(lines)
    while i < n:
        m = LIST_RE.match(lines[i])
        if not m or len(m.group(1)) != base or m.group(2)[0].isdigit() != ordered:
            break
        content_indent = len(m.group(1)) + len(m.group(2)) + len(m.group(3))
        body = [m.group(4)]
        i += 1
        while i < n:
            line = lines[i]
            if not line.strip():
                # a blank line: the item goes on if the next line is indented into it
                j = i
                while j < n and not lines[j].strip():
                    j += 1
                if j < n and indent_of(lines[j]) >= content_indent:
                    body.extend([""] * (j - i))
                    i = j
                    continue
                break
            lm = LIST_RE.match(line)
            if lm and len(lm.group(1)) <= base:
                break  # the next item of this list, or of an outer one
            if indent_of(line) >= content_indent:
                body.append(line[content_indent:])
            elif lm:
                body.append(line.lstrip(" "))  # a nested list less indented than the text
            elif body[-1].strip() and not FENCE_RE.match(line):
                body.append(line.strip())  # lazy continuation of the paragraph
            else:
                break
            i += 1
        items.append((m.group(2), parse_blocks(body)))
        # blank lines between items of one list
        j = i
        while j < n and not lines[j].strip():
            j += 1
        if j < n and j > i:
            lm = LIST_RE.match(lines[j])
            if lm and len(lm.group(1)) == base and lm.group(2)[0].isdigit() == ordered:
                i = j
    blocks.append(("list", ordered, items))
    return i


# ---- roff output -----------------------------------------------------------

def render_blocks(blocks, out, in_item=False):
    for k, b in enumerate(blocks):
        kind = b[0]
        if kind == "para":
            if in_item and k == 0:
                pass  # the first paragraph follows the item's .IP
            else:
                out.append(".IP" if in_item else ".PP")
            out.extend(fill_lines(inline(b[1])))
        elif kind == "code":
            if not (in_item and k == 0):
                out.append(".IP" if in_item else ".PP")
            out.append(".RS 4" if not in_item else ".RS 0")
            out.append(".nf")
            for line in b[1]:
                out.append(safe_line(escape(line.expandtabs(8), literal=True)) if line.strip() else "")
            out.append(".fi")
            out.append(".RE")
        elif kind == "table":
            if in_item:
                out.append(".RS")
            render_table(b[1], b[2], out)
            if in_item:
                out.append(".RE")
        elif kind == "list":
            if in_item:
                out.append(".RS")
            for marker, body in b[2]:
                tag = "\\(bu" if not b[1] else escape(marker)
                out.append(".IP %s %d" % (tag, 2 if not b[1] else 4))
                render_blocks(body, out, in_item=True)
            if in_item:
                out.append(".RE")
    # blank code lines would be blank roff lines: make them explicit
    for idx, line in enumerate(out):
        if line == "":
            out[idx] = "\\&"


def render_table(header, rows, out):
    """One .TP per row: "FIRST (header: value; ...)" as the tag, the last
    cell as the text."""
    for row in rows:
        cells = row + [""] * (len(header) - len(row))
        tag = inline(cells[0]) if cells[0] else ""
        middle = []
        for h, c in zip(header[1:-1], cells[1:-1]):
            if c and c not in ("-", "\u2014"):
                middle.append(("\\fI%s\\fR: " % inline(h) if h else "") + inline(c))
        if middle:
            tag = (tag + " " if tag else "") + "(" + "; ".join(middle) + ")"
        out.append(".TP")
        out.append(safe_line(tag) if tag else "\\&")
        text = cells[len(header) - 1] if len(header) > 1 else ""
        out.extend(fill_lines(inline(text)) if text else ["\\&"])


def section_heading(raw_title, level):
    if level <= 2:
        # upper case, except inside code spans
        parts = re.split(r"(`+[^`]*`+)", raw_title)
        raw = "".join(p if p.startswith("`") else p.upper() for p in parts)
        return ".SH " + macro_arg(inline(raw))
    return ".SS " + macro_arg(inline(raw_title))


def select(sections, only, skip):
    titles = {s.title for s in sections}
    for name in (only or []) + (skip or []):
        if name not in titles:
            raise Md2ManError("no section \"%s\" (sections: %s)"
                              % (name, ", ".join(s.title for s in sections)))
    kept = []
    keep_level = None  # inside a kept (only) or skipped section of this level
    mode = None
    for s in sections:
        if keep_level is not None and s.level > keep_level:
            if mode == "keep":
                kept.append(s)
            continue
        keep_level = None
        if skip and s.title in skip:
            keep_level, mode = s.level, "skip"
            continue
        if only:
            if s.title in only:
                keep_level, mode = s.level, "keep"
                kept.append(s)
            continue
        kept.append(s)
    return kept


SUPERSCRIPTS = {"\u2070": "0", "\u00B9": "1", "\u00B2": "2", "\u00B3": "3", "\u2074": "4",
                "\u2075": "5", "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9",
                "\u207B": "-", "\u207A": "+"}
SUBSCRIPTS = {chr(0x2080 + d): str(d) for d in range(10)}


def ascii_fallbacks(text):
    """Characters that groff's ps, ascii and latin1 devices have no glyph
    for: superscripts as ^N, subscripts as _N, the ellipsis as three dots."""
    text = re.sub("[%s]+" % "".join(SUPERSCRIPTS),
                  lambda m: "^" + "".join(SUPERSCRIPTS[c] for c in m.group(0)), text)
    text = re.sub("[%s]+" % "".join(SUBSCRIPTS),
                  lambda m: "_" + "".join(SUBSCRIPTS[c] for c in m.group(0)), text)
    return text.replace("\u2026", "...")


def convert(text, name, section, description, only=None, skip=None, see_also=None,
            source="", manual="", rename=None):
    text = ascii_fallbacks(text)
    title, intro, sections = split_sections(text.splitlines())
    if title is None:
        raise Md2ManError("no \"# title\" line")
    sections = select(sections, only, skip)
    rename = dict(rename or {})
    for old in rename:
        if old not in {s.title for s in sections}:
            raise Md2ManError("--rename: no section \"%s\"" % old)

    out = ['.\\" Generated by tools/man/md2man.py; do not edit.',
           ".TH %s %s %s %s %s" % (macro_arg(escape(name.upper())), section, '""',
                                   macro_arg(escape(source)), macro_arg(escape(manual))),
           # no hyphenation (option names, paths), ragged right, as git's pages
           ".nh",
           ".ad l",
           ".SH NAME",
           safe_line(escape(name, literal=True) + " \\- " + escape(description))]

    synopsis = [s for s in sections if s.level == 2 and s.title.lower() == "synopsis"]
    desc = [s for s in sections if s.level == 2 and s.title.lower() == "description"]

    def emit(sec, heading=None):
        out.append(heading or section_heading(rename.get(sec.title, sec.raw_title), sec.level))
        render_blocks(parse_blocks(sec.lines), out)

    def with_subsections(first):
        idx = sections.index(first)
        group = [first]
        for s in sections[idx + 1:]:
            if s.level <= first.level:
                break
            group.append(s)
        return group

    done = set()
    for s in synopsis:
        for t in with_subsections(s):
            emit(t, ".SH SYNOPSIS" if t is s else None)
            done.add(id(t))
    intro_blocks = parse_blocks(intro)
    if intro_blocks or desc:
        out.append(".SH DESCRIPTION")
        render_blocks(intro_blocks, out)
        for s in desc:
            for t in with_subsections(s):
                if t is s:
                    render_blocks(parse_blocks(t.lines), out)
                else:
                    emit(t)
                done.add(id(t))
    for s in sections:
        if id(s) not in done:
            emit(s)
    if see_also:
        out.append(".SH \"SEE ALSO\"")
        refs = []
        for ref in see_also:
            m = re.match(r"^([\w.+-]+)\((\w+)\)$", ref)
            if not m:
                raise Md2ManError("--see-also: \"%s\" is not NAME(SECTION)" % ref)
            refs.append(".BR %s (%s)" % (escape(m.group(1), literal=True), m.group(2)))
        for k, r in enumerate(refs):
            out.append(r + ("," if k + 1 < len(refs) else ""))
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="ACCT's markdown docs to a man page.")
    ap.add_argument("input", help="the markdown page")
    ap.add_argument("-o", "--output", required=True, help="the man page to write")
    ap.add_argument("--name", required=True, help="the page's name (acctd)")
    ap.add_argument("--section", required=True, help="its section (8)")
    ap.add_argument("--description", required=True, help="NAME's one-line description")
    ap.add_argument("--only", action="append", help="keep only this section (repeatable)")
    ap.add_argument("--skip", action="append", help="leave this section out (repeatable)")
    ap.add_argument("--rename", action="append", default=[],
                    help="OLD=NEW: a section's man heading (\"Environment variables=ENVIRONMENT\")")
    ap.add_argument("--see-also", action="append", help="NAME(SECTION) (repeatable)")
    ap.add_argument("--link", action="append", default=[],
                    help="PAGE.md=NAME(SECTION): links to and mentions of PAGE.md name the man page")
    ap.add_argument("--source", default="", help="the footer's source (\"ACCT 0.1.0\")")
    ap.add_argument("--manual", default="", help="the header's manual name")
    a = ap.parse_args(argv)
    try:
        rename = []
        for r in a.rename:
            if "=" not in r:
                raise Md2ManError("--rename: \"%s\" is not OLD=NEW" % r)
            rename.append(tuple(r.split("=", 1)))
        for link in a.link:
            m = re.match(r"^([\w.+-]+\.md)=([\w.+-]+\(\w+\))$", link)
            if not m:
                raise Md2ManError("--link: \"%s\" is not PAGE.md=NAME(SECTION)" % link)
            LINKS[m.group(1)] = m.group(2)
        with open(a.input, encoding="utf-8") as f:
            text = f.read()
        page = convert(text, a.name, a.section, a.description, a.only, a.skip, a.see_also,
                       a.source, a.manual, rename)
    except (Md2ManError, OSError, UnicodeDecodeError) as e:
        print("md2man: %s: %s" % (a.input, e), file=sys.stderr)
        return 1
    tmp = a.output + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(page)
    import os
    os.replace(tmp, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
