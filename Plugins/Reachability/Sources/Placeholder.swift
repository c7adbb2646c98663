// Placeholder until the Reachability probe lands.
