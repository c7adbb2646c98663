// Placeholder until the LinkState probe lands.
