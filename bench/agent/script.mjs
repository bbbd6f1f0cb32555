// The conversation both sides play: `turns` assistant messages of `calls` no-op tool calls each
// (`{ path: "x" }`, ids call_<turn>_<n>), then a final text. turns 0 = the final text alone.

export function script({ turns, calls }) {
  const out = [];
  for (let t = 1; t <= turns; t++) {
    const content = [];
    for (let c = 1; c <= calls; c++) content.push({ type: 'toolCall', id: `call_${t}_${c}`, name: 'noop', arguments: { path: 'x' } });
    out.push({ content });
  }
  out.push({ content: [{ type: 'text', text: 'done' }] });
  return out;
}
