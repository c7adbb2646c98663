import CNetlink
import PathwatchNetlink

/// Builds netlink bytes by hand, the way the kernel lays them out, so tests can then break them.
enum NetlinkBytes {
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    /// One attribute with its padding.
    static func attribute(_ type: Int, _ payload: [UInt8], nested: Bool = false) -> [UInt8] {
        let rawType = UInt16(type) | (nested ? UInt16(NLA_F_NESTED) : 0)
        return padded(le(UInt16(4 + payload.count)) + le(rawType) + payload)
    }

    static func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    /// One message: header (with the given length, or the true one) and payload.
    static func message(
        _ type: Int, flags: UInt16 = 0, sequence: UInt32 = 0, portID: UInt32 = 0,
        payload: [UInt8], length: UInt32? = nil
    ) -> [UInt8] {
        let true_length = UInt32(16 + payload.count)
        return le(length ?? true_length) + le(UInt16(type)) + le(flags) + le(sequence) + le(portID) + payload
    }

    /// ifinfomsg: family, pad, type, index, flags, change.
    static func ifinfomsg(index: Int32, type: UInt16 = UInt16(ARPHRD_ETHER), flags: UInt32) -> [UInt8] {
        [0, 0] + le(type) + le(index) + le(flags) + le(UInt32(0))
    }

    /// A well-formed RTM_NEWLINK for "eth0" with the attributes the probe reads.
    static func linkMessage(extra: [UInt8] = []) -> [UInt8] {
        let flags = IFF_UP.rawValue | IFF_LOWER_UP.rawValue | IFF_RUNNING.rawValue
        var payload = ifinfomsg(index: 7, flags: flags)
        payload += attribute(IFLA_IFNAME, string("eth0"))
        payload += attribute(IFLA_MTU, le(UInt32(1500)))
        payload += attribute(IFLA_OPERSTATE, [UInt8(IF_OPER_UP)])
        payload += attribute(IFLA_CARRIER, [1])
        payload += attribute(IFLA_CARRIER_CHANGES, le(UInt32(3)))
        payload += attribute(IFLA_ADDRESS, [0x02, 0x00, 0x5e, 0x10, 0x00, 0x01])
        payload += attribute(IFLA_LINKINFO, attribute(IFLA_INFO_KIND, string("veth")), nested: true)
        payload += attribute(IFLA_STATS64, (0..<24).flatMap { le(UInt64($0 + 100)) })
        payload += extra
        return message(RTM_NEWLINK, payload: payload)
    }
}
