import CNetlink
import Testing

@testable import LinkStateProbe

@Suite("interface type, as NetworkManager classifies it")
struct InterfaceTypeTests {
    let sysfs = Sysfs(root: Fixtures.sysfs)

    @Test(arguments: [
        // DEVTYPE in uevent wins over the hardware type.
        ("wlan0", UInt16(ARPHRD_ETHER), InterfaceType.wifi),
        ("wwan0", UInt16(ARPHRD_ETHER), .cellular),
        // A USB modem whose name gives nothing away: DEVTYPE=wwan.
        ("usb0", UInt16(ARPHRD_ETHER), .cellular),
        // No DEVTYPE, but the phy80211 link every cfg80211 device has.
        ("wlp3s0", UInt16(ARPHRD_ETHER), .wifi),
        // Raw-IP modem interfaces, by hardware type or by the drivers' names.
        ("rmnet_data0", UInt16(ARPHRD_RAWIP), .cellular),
        ("ccmni0", UInt16(ARPHRD_NONE), .cellular),
        ("eth0", UInt16(ARPHRD_ETHER), .ethernet),
        ("lo", UInt16(ARPHRD_LOOPBACK), .loopback),
        ("tun0", UInt16(ARPHRD_NONE), .other),
        // An interface sysfs does not know (it vanished): the hardware type still decides.
        ("gone0", UInt16(ARPHRD_ETHER), .ethernet),
    ])
    func classifies(name: String, hardwareType: UInt16, expected: InterfaceType) {
        #expect(InterfaceType.classify(name: name, hardwareType: hardwareType, sysfs: sysfs) == expected)
    }

    @Test func readsSpeedOnlyWhenPositive() {
        #expect(sysfs.speedMbps("eth0") == 1000)
        #expect(sysfs.speedMbps("eth1") == nil)
        #expect(sysfs.speedMbps("wlan0") == nil)
    }
}
