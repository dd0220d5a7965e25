/**
 * The part of hoodiecrow-imap's API the seed mailbox servers use. hoodiecrow (a scriptable IMAP
 * server by imapflow's author) ships no type declarations.
 */
declare module 'hoodiecrow-imap' {
  import type { Server } from 'node:net';

  interface HoodiecrowOptions {
    plugins?: string[];
    users?: Record<string, { password: string; xoauth2?: { accessToken: string } }>;
    storage?: Record<string, unknown>;
    debug?: boolean;
  }

  interface StoredMessage {
    raw: string | Buffer;
  }

  interface Hoodiecrow {
    server: Server;
    registerCapability(name: string): void;
    /** Search keys by name: (connection, message, sequence, ...values) => matches. */
    searchHandlers: Record<string, (connection: unknown, message: StoredMessage, sequence: number, ...values: string[]) => boolean>;
    /** Files a message in a folder of the server's store at once, as a delivery would. */
    appendMessage(folder: string, flags: string[], internalDate: Date, raw: string): unknown;
    listen(port: number, host: string, callback: () => void): void;
    close(callback?: () => void): void;
  }

  function hoodiecrow(options: HoodiecrowOptions): Hoodiecrow;
  export = hoodiecrow;
}
