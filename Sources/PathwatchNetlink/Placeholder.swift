// Placeholder until the netlink library lands.
