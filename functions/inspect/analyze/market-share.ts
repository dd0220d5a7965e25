/**
 * Weights of caniemail's client families in `market_support`, rounded from Litmus' published
 * "Email Client Market Share" figures (opens tracked across its customers, 2024-2025). They are
 * approximate and skewed: Apple Mail's share is inflated by Mail Privacy Protection preloading
 * images. Families not listed weigh nothing in the market figure (they still have their own
 * `inbox_provider_support`). Edit here to weight the market as your audience is.
 */
export const MARKET_SHARE: Readonly<Record<string, number>> = {
  'apple-mail': 0.5,
  gmail: 0.3,
  outlook: 0.07,
  yahoo: 0.03,
  'samsung-email': 0.01,
  thunderbird: 0.005,
  aol: 0.005,
};
