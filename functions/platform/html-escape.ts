/** Text made safe to place in HTML, in element content or a quoted attribute alike. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
