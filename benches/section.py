"""Puts a section between `<!-- TAG:start -->` and `<!-- TAG:end -->` in a
results file, or appends it with its markers: one command's figures replace
its own earlier ones and nothing else.

Usage: python3 benches/section.py FILE TAG SECTION-TEXT
"""
import re
import sys

path, tag, section = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
start, end = f'<!-- {tag}:start -->', f'<!-- {tag}:end -->'
block = start + '\n' + section + '\n' + end
if start in text:
    text = re.sub(re.escape(start) + '.*?' + re.escape(end), lambda m: block, text, flags=re.S)
else:
    text = text.rstrip('\n') + '\n\n' + block + '\n'
open(path, 'w').write(text)
