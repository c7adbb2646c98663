import CNetlink

/// An interface address (`RTM_NEWADDR`: `ifaddrmsg` plus `IFA_*`).
package struct Address: Sendable, Equatable, Hashable {
    /// `AF_INET` or `AF_INET6`.
    package var family: UInt8
    package var prefixLength: UInt8
    package var scope: UInt8
    package var interfaceIndex: Int32
    /// The interface's own address: `IFA_LOCAL` when present (it differs from `IFA_ADDRESS` only on
    /// point-to-point links, where `IFA_ADDRESS` is the peer), else `IFA_ADDRESS`.
    package var address: [UInt8]
    /// `IFA_FLAGS` when present (it carries the full 32 bits), else `ifa_flags`.
    package var flags: UInt32

    package init(
        family: UInt8, prefixLength: UInt8, scope: UInt8 = 0, interfaceIndex: Int32, address: [UInt8], flags: UInt32 = 0
    ) {
        self.family = family
        self.prefixLength = prefixLength
        self.scope = scope
        self.interfaceIndex = interfaceIndex
        self.address = address
        self.flags = flags
    }

    /// "10.0.0.5/24", "fe80::1/64".
    package var text: String {
        "\(IPAddressText.format(address) ?? "?")/\(prefixLength)"
    }

    /// `sizeof(struct ifaddrmsg)`.
    static let familyHeaderSize = 8

    /// Parses an `RTM_NEWADDR` / `RTM_DELADDR` message.
    package init(message: NetlinkMessage) throws(NetlinkError) {
        let (header, attributes) = try message.splitFamilyHeader(size: Self.familyHeaderSize, named: "ifaddrmsg")
        // ifaddrmsg: family u8, prefixlen u8, flags u8, scope u8, index u32.
        let family = header.loadInteger(UInt8.self, at: 0) ?? 0
        let expected = Int32(family) == AF_INET ? 4 : Int32(family) == AF_INET6 ? 16 : nil
        guard let addressAttribute = attributes[IFA_LOCAL] ?? attributes[IFA_ADDRESS] else {
            throw .malformed(
                "\(message.messageName) at offset \(message.offset) carries neither IFA_LOCAL nor IFA_ADDRESS")
        }
        let address =
            try expected.map { n throws(NetlinkError) in try addressAttribute.bytes(count: n, "IFA_ADDRESS") }
            ?? addressAttribute.bytes()
        self.init(
            family: family,
            prefixLength: header.loadInteger(UInt8.self, at: 1) ?? 0,
            scope: header.loadInteger(UInt8.self, at: 3) ?? 0,
            interfaceIndex: Int32(bitPattern: header.loadInteger(UInt32.self, at: 4) ?? 0),
            address: address,
            flags: try attributes[IFA_FLAGS]?.u32("IFA_FLAGS") ?? UInt32(header.loadInteger(UInt8.self, at: 2) ?? 0))
    }
}
