// Whether the window is visible and whether the person asked for less motion (R2).
// While hidden, <html data-page-hidden> pauses every CSS animation and tickers stop.
class PageState {
  visible = $state(true);
  reducedMotion = $state(false);
  #installed = false;

  install(): void {
    if (this.#installed || typeof document === "undefined") return;
    this.#installed = true;
    const root = document.documentElement;
    const sync = (): void => {
      this.visible = document.visibilityState === "visible";
      root.toggleAttribute("data-page-hidden", !this.visible);
    };
    document.addEventListener("visibilitychange", sync);
    sync();
    const mq = window.matchMedia("(prefers-reduced-motion: reduce)");
    this.reducedMotion = mq.matches;
    mq.addEventListener("change", (e) => {
      this.reducedMotion = e.matches;
    });
  }
}

export const page = new PageState();
