// applyTextEdits applies LSP text edits (UTF-16 positions, which JavaScript
// strings index natively) to text, last first, as an editor applies
// workspace/applyEdit to its buffer.
export function applyTextEdits(text, edits) {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const offset = (p) => Math.min((lineStarts[p.line] ?? text.length) + p.character, text.length);
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offset(e.range.start)) + e.newText + text.slice(offset(e.range.end));
  }
  return text;
}
