// The layout worker: ForceAtlas2 for a small view, away from the UI thread (see layout.ts).
import { layoutInCircle, type LayoutRequest, type Placed } from './layout';

// A dedicated worker's scope (the project's TypeScript lib is the DOM's).
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(message: { id: number; placed: Placed }): void;
};

scope.onmessage = (e) => {
  const { id, nodes, edges, cx, cy, R, centre } = e.data;
  const placed: Placed = [];
  for (const [k, p] of layoutInCircle(nodes, edges, cx, cy, R, centre)) placed.push([k, p.x, p.y]);
  scope.postMessage({ id, placed });
};
