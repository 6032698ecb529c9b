#!/usr/bin/env python3
"""Checks every relative link in README.md, python/README.md, fixtures/README.md and docs/*.md:
the file it points to exists, and so does its #anchor (GitHub's heading slugs).
Usage: python3 scripts/check_doc_links.py [REPO]   (REPO defaults to the current folder)"""
import pathlib
import re
import sys
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else '.').resolve()
files = [root / 'README.md', root / 'python' / 'README.md', root / 'fixtures' / 'README.md'] + sorted((root / 'docs').glob('*.md'))
def slug(h):
    h = re.sub(r'`', '', h).strip().lower()
    # GitHub: drop punctuation except hyphens, underscores and spaces; spaces to hyphens
    out = ''.join(c for c in h if c.isalnum() or c in ' -_')
    return out.replace(' ', '-')
def anchors(path):
    seen, res = {}, set()
    in_code = False
    for line in path.read_text().split('\n'):
        if line.startswith('```'):
            in_code = not in_code
            continue
        if in_code: continue
        m = re.match(r'^(#{1,6})\s+(.*)$', line)
        if m:
            s = slug(m.group(2))
            n = seen.get(s, 0)
            res.add(s if n == 0 else f'{s}-{n}')
            seen[s] = n + 1
    return res
bad = 0; count = 0
for f in files:
    text = f.read_text()
    text_nocode = re.sub(r'```.*?```', '', text, flags=re.S)
    for m in re.finditer(r'\]\(([^)\s]+)\)', text_nocode):
        target = m.group(1)
        if re.match(r'[a-z]+:', target): continue
        count += 1
        path, _, anchor = target.partition('#')
        tp = (f.parent / path).resolve() if path else f
        if not tp.exists():
            print(f'{f.relative_to(root)}: missing file {target}'); bad += 1; continue
        if anchor:
            if tp.suffix != '.md' or anchor not in anchors(tp):
                print(f'{f.relative_to(root)}: missing anchor {target}'); bad += 1
print(f'{count} relative links checked, {bad} bad')
sys.exit(1 if bad else 0)
