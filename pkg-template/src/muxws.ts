/**
 * muxws: `connectMuxws(url, options)` and `MuxwsPeer`, multiplexed streams over one WebSocket,
 * implemented in Rust (`muxws-proto` driven by the platform WebSocket).
 */

/** A muxws peer (dialer side). */
export interface MuxwsPeer {
  /** The wasm peer behind this object; what a muxws proxy sends its calls through. */
  readonly core: unknown;
}
