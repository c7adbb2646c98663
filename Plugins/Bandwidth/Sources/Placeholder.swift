// Placeholder until the Bandwidth probe lands.
