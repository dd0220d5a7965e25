/**
 * The part of hoodiecrow-imap's API the seed mailbox servers use. hoodiecrow (a scriptable IMAP
 * server by imapflow's author) ships no type declarations.
 */
declare module 'hoodiecrow-imap' {
  import type { Server } from 'node:net';

  interface HoodiecrowOptions {
    plugins?: string[];
    users?: Record<string, { password: string; xoauth2?: { accessToken: string; sessionTimeout?: number } }>;
    storage?: Record<string, unknown>;
    debug?: boolean;
  }

  interface Hoodiecrow {
    server: Server;
    listen(port: number, host: string, callback: () => void): void;
    close(callback?: () => void): void;
  }

  function hoodiecrow(options: HoodiecrowOptions): Hoodiecrow;
  export = hoodiecrow;
}
