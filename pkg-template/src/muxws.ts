/**
 * muxws: multiplexed streams over one WebSocket. TEMPORARY while the muxws module is rebuilt on its
 * own branch (docs/boundary.md, "The muxws module"): connecting rejects.
 */
import { ConnectionClosed } from './errors.js';

/** A muxws peer (dialer side). */
export class MuxwsPeer {}

/** Options of `connectMuxws`. */
export type ConnectOptions = Record<string, unknown>;

/** Connects to a muxws endpoint. */
export async function connectMuxws(_url: string, _options: ConnectOptions = {}): Promise<MuxwsPeer> {
  throw new ConnectionClosed('muxws is not available in this build');
}
