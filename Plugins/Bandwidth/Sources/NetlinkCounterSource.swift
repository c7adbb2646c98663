// TEMPORARY STUB until the netlink library is merged.
public final class NetlinkCounterSource: CounterSource {
    public let kind = "netlink"
    public let width = CounterWidth.bits64
    struct Unavailable: Error {}
    public init() throws { throw Unavailable() }
    public func read(selecting selected: (String) -> Bool) throws -> CounterSnapshot { throw Unavailable() }
}
