// The page's own frame floor, shared by the app benchmarks: a line of text added to the page,
// timed as a step is (shown at the first animation frame, plus two frames), then removed. With
// no GPU, every frame is composited in software GL; a step's time over this floor is what the
// app adds.

/**
 * Resolves with `{ ms, shown, frames }` (ms from the start) of one floor measurement. `overMap`:
 * the line is put over the middle of the map instead of the page's bottom-left corner (a change
 * drawn over the map's canvas, as the search list is). `afterFrame`: started just after the
 * page has drawn a frame (a timeout set in an animation frame callback) rather than whenever
 * the call arrives, so that a step started the same way is compared at the same point of the
 * frame: otherwise where each lands in its frame adds up to a frame to either, and their
 * difference varies by a frame in both directions.
 */
export async function pageFloor(overMap = false, afterFrame = false) {
  const r = await browser.executeAsync((overMap, afterFrame, done) => {
    const start = (go) => (afterFrame ? requestAnimationFrame(() => setTimeout(go, 0)) : go());
    start(() => {
      const el = document.createElement('div');
      el.textContent = `frame ${Math.round(performance.now())}`;
      let at = 'left:6px;bottom:4px';
      const map = overMap && document.querySelector('[data-testid="map"]')?.getBoundingClientRect();
      if (map) at = `left:${Math.round(map.x + map.width / 2)}px;top:${Math.round(map.y + map.height / 2)}px`;
      el.style.cssText = `position:fixed;${at};font:11px sans-serif;color:#5b6b8c;pointer-events:none;z-index:9`;
      const frames = [];
      const t0 = performance.now();
      document.body.appendChild(el);
      const r = (x) => Math.round((x - t0) * 10) / 10;
      requestAnimationFrame(() => {
        const shown = performance.now();
        frames.push(shown);
        requestAnimationFrame(() => {
          frames.push(performance.now());
          requestAnimationFrame(() => {
            const ms = performance.now() - t0;
            // Gone again, and its removal drawn, before the step starts.
            el.remove();
            requestAnimationFrame(() => requestAnimationFrame(() => done({ ms, shown: r(shown), frames: frames.map(r) })));
          });
        });
      });
    });
  }, overMap, afterFrame);
  return { ms: Math.round(r.ms * 10) / 10, shown: r.shown, frames: r.frames };
}
