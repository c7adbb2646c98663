import CNetlink
import Glibc
import PathwatchNetlink
import Testing

@Suite("route and address messages")
struct RouteAndAddressParsingTests {
    typealias B = NetlinkBytes

    static func rtmsg(family: Int32, dstLength: UInt8 = 0, table: UInt8 = UInt8(RT_TABLE_MAIN.rawValue)) -> [UInt8] {
        [
            UInt8(family), dstLength, 0, 0, table, UInt8(RTPROT_STATIC), UInt8(RT_SCOPE_UNIVERSE.rawValue),
            UInt8(RTN_UNICAST),
        ] + B.le(UInt32(0))
    }

    @Test func parsesADefaultRouteWithGatewayAndMetric() throws {
        let payload =
            Self.rtmsg(family: AF_INET)
            + B.attribute(Int(RTA_TABLE.rawValue), B.le(UInt32(RT_TABLE_MAIN.rawValue)))
            + B.attribute(Int(RTA_GATEWAY.rawValue), [10, 0, 0, 1])
            + B.attribute(Int(RTA_OIF.rawValue), B.le(UInt32(4)))
            + B.attribute(Int(RTA_PRIORITY.rawValue), B.le(UInt32(100)))
        let message = try #require(
            try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWROUTE, payload: payload))).first)
        let route = try Route(message: message)
        #expect(route.isMainDefault)
        #expect(route.priority == 100)
        #expect(route.nextHops == [Route.NextHop(interfaceIndex: 4, gateway: [10, 0, 0, 1])])
    }

    @Test func parsesMultipathNextHopsAndRejectsABadOne() throws {
        func hop(_ index: Int32, _ gateway: [UInt8], length: UInt16? = nil) -> [UInt8] {
            let attributes = B.attribute(Int(RTA_GATEWAY.rawValue), gateway)
            return B.le(length ?? UInt16(8 + attributes.count)) + [0, 0] + B.le(index) + attributes
        }
        let good =
            Self.rtmsg(family: AF_INET)
            + B.attribute(Int(RTA_MULTIPATH.rawValue), hop(2, [10, 0, 0, 1]) + hop(3, [10, 0, 1, 1]))
        let message = try #require(try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWROUTE, payload: good))).first)
        #expect(try Route(message: message).nextHops.map(\.interfaceIndex) == [2, 3])

        let bad =
            Self.rtmsg(family: AF_INET) + B.attribute(Int(RTA_MULTIPATH.rawValue), hop(2, [10, 0, 0, 1], length: 64))
        let badMessage = try #require(try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWROUTE, payload: bad))).first)
        #expect(throws: NetlinkError.self) { try Route(message: badMessage) }
    }

    @Test func rejectsARouteMetricOfTheWrongSize() throws {
        let payload = Self.rtmsg(family: AF_INET) + B.attribute(Int(RTA_PRIORITY.rawValue), [100])
        let message = try #require(
            try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWROUTE, payload: payload))).first)
        #expect(throws: NetlinkError.malformed("RTA_PRIORITY at offset 28: expected a 4-byte u32, found 1 byte(s)")) {
            try Route(message: message)
        }
    }

    @Test func parsesAnAddressPreferringTheLocalAddress() throws {
        let payload: [UInt8] =
            [UInt8(AF_INET), 24, 0, 0] + B.le(UInt32(5))
            + B.attribute(IFA_ADDRESS, [10, 0, 0, 9]) + B.attribute(IFA_LOCAL, [10, 0, 0, 5])
        let message = try #require(try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWADDR, payload: payload))).first)
        let address = try Address(message: message)
        #expect(address.text == "10.0.0.5/24")
        #expect(address.interfaceIndex == 5)
    }

    @Test func rejectsAnAddressOfTheWrongLengthForItsFamily() throws {
        let payload: [UInt8] = [UInt8(AF_INET6), 64, 0, 0] + B.le(UInt32(5)) + B.attribute(IFA_ADDRESS, [10, 0, 0, 9])
        let message = try #require(try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWADDR, payload: payload))).first)
        #expect(throws: NetlinkError.malformed("IFA_ADDRESS at offset 24: expected 16 byte(s), found 4")) {
            try Address(message: message)
        }
    }

    @Test func decodesEventsAndIgnoresOtherMessageTypes() throws {
        let link = try #require(try NetlinkMessage.split(ArraySlice(B.linkMessage())).first)
        guard case .linkChanged(let parsed) = try RouteEvent(message: link) else {
            Issue.record("RTM_NEWLINK did not decode as a link change")
            return
        }
        #expect(parsed.name == "eth0")
        let neighbour = try #require(
            try NetlinkMessage.split(ArraySlice(B.message(RTM_NEWNEIGH, payload: [0, 0, 0, 0]))).first)
        #expect(try RouteEvent(message: neighbour) == nil)
    }
}
