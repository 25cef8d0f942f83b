// Glob patterns as `fs.glob` and `path.matchesGlob` read them, as
// workerd (and Node's minimatch) read them: braces expand first (`{a,b}`,
// `{1..3}`, nested, across `/`); the pattern is split into segments,
// `.` segments dropped and `x/..` collapsed; `**` matches any number of
// whole segments, and within one segment `*`, `?`, `[...]` (`[!...]`
// negated) and the extglobs `@(a|b)`, `?(...)`, `*(...)`, `+(...)` and
// `!(...)` match as in bash. `path.matchesGlob` does not let a wildcard
// match a name's leading dot; `fs.glob` does, as workerd's. Nothing here
// touches a file.

import { validateString } from './_errors.js';

// `{a,b}` and `{1..3}` expanded, left to right, nested braces included.
// A brace with neither a comma nor a range is literal.
function expandBraces(pattern) {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{') {
      if (depth++ === 0) open = i;
    } else if (c === '}' && depth > 0 && --depth === 0) {
      const body = pattern.slice(open + 1, i);
      const alternatives = splitOutside(body, ',', '{', '}');
      const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(body);
      let items;
      if (alternatives.length > 1) items = alternatives;
      else if (range) items = rangeOf(range[1], range[2]);
      else continue;
      const head = pattern.slice(0, open);
      const tails = expandBraces(pattern.slice(i + 1));
      return items.flatMap((item) => expandBraces(item).flatMap((one) => tails.map((tail) => head + one + tail)));
    }
  }
  return [pattern];
}

// `body` split at each `separator` outside nested `open`...`close` groups
// (a brace's commas, an extglob's bars).
function splitOutside(body, separator, open, close) {
  const out = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === open) depth++;
    else if (c === close) depth--;
    else if (c === separator && depth === 0) {
      out.push(body.slice(from, i));
      from = i + 1;
    }
  }
  out.push(body.slice(from));
  return out;
}

function rangeOf(from, to) {
  const letters = !/\d/.test(from);
  const a = letters ? from.charCodeAt(0) : Number(from);
  const b = letters ? to.charCodeAt(0) : Number(to);
  const step = a <= b ? 1 : -1;
  const out = [];
  for (let n = a; step > 0 ? n <= b : n >= b; n += step) out.push(letters ? String.fromCharCode(n) : String(n));
  return out;
}

// The end of the group that opens at `at` (`(` or `[`), or -1.
function closing(text, at, close) {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === text[at]) depth++;
    else if (text[i] === close && --depth === 0) return i;
  }
  return -1;
}

// One segment's pattern as RegExp source (no anchors).
function segmentSource(segment) {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    const next = segment[i + 1];
    if ('@?*+!'.includes(c) && next === '(') {
      const end = closing(segment, i + 1, ')');
      if (end > 0) {
        const body = splitOutside(segment.slice(i + 2, end), '|', '(', ')').map(segmentSource).join('|');
        if (c === '!') {
          const rest = segmentSource(segment.slice(end + 1));
          out += `(?:(?!(?:${body})${rest}$)[^/]*?)`;
        } else {
          out += `(?:${body})${c === '@' ? '' : c}`;
        }
        i = end;
        continue;
      }
    }
    if (c === '\\' && next !== undefined) {
      out += next.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    } else if (c === '*') {
      while (segment[i + 1] === '*') i++;
      out += '[^/]*?';
    } else if (c === '?') out += '[^/]';
    else if (c === '[' && closing(segment, i, ']') > i + 1) {
      const end = segment.indexOf(']', i + 2);
      let set = segment.slice(i + 1, end);
      if (set[0] === '!') set = `^${set.slice(1)}`;
      out += `[${set.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else out += c.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

// A segment: '**', '..', '' (the root, first only) or a RegExp. Without
// `dot`, a wildcard does not match a leading `.`; `.` and `..` are never
// matched by one.
function segmentOf(segment, dot) {
  if (segment === '**' || segment === '..' || segment === '.' || segment === '') return segment;
  const leadingDot = segment[0] === '.';
  return new RegExp(`^${leadingDot || dot ? '(?!\\.\\.?$)' : '(?!\\.)'}${segmentSource(segment)}$`);
}

// The pattern as lists of segments, one per brace expansion, split at
// `separators` (a RegExp). `fs.glob` drops `.` segments; `matchesGlob`
// matches them as names.
export function compile(pattern, separators, dot) {
  return expandBraces(pattern).map((one) => {
    const parts = [];
    one.split(separators).forEach((segment, i) => {
      if ((segment === '.' && dot) || (segment === '' && i > 0)) return;
      const last = parts[parts.length - 1];
      if (segment === '..' && last !== undefined && last !== '' && last !== '..' && last !== '**') parts.pop();
      else parts.push(segment);
    });
    return parts.map((segment) => segmentOf(segment, dot));
  });
}

// Whether the path segments `names` match `parts`. A last `**` matches
// one segment or more, as minimatch's does; without `dot` it matches no
// name that starts with `.`. A path's trailing separator (a last empty
// name) is matched by `**` or by nothing.
export function segmentsMatch(parts, names, dot = true) {
  if (parts.length === 0) return names.length === 0 || (names.length === 1 && names[0] === '');
  const [part, ...rest] = parts;
  if (part === '**') {
    for (let i = 0; i <= names.length; i++) {
      if ((i > 0 || rest.length > 0) && segmentsMatch(rest, names.slice(i), dot)) return true;
      if (i < names.length && !dot && names[i][0] === '.') return false;
    }
    return false;
  }
  if (names.length === 0) return false;
  const ok = typeof part === 'string' ? names[0] === part : part.test(names[0]);
  return ok && segmentsMatch(rest, names.slice(1), dot);
}

// `path.matchesGlob(path, pattern)` for paths separated by `separators`
// (a RegExp).
export function globMatcher(separators) {
  return function matchesGlob(path, pattern) {
    validateString(path, 'path');
    validateString(pattern, 'pattern');
    const names = path.split(separators).filter((s, i, all) => s !== '' || i === 0 || i === all.length - 1);
    return compile(pattern, separators, false).some((parts) => segmentsMatch(parts, names, false));
  };
}
