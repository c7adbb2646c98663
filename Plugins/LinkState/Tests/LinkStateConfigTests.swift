import PathwatchProbeKit
import Testing

@testable import LinkStateProbe

@Suite("linkstate configuration")
struct LinkStateConfigTests {
    func decode(_ json: String) throws(ProbeConfigError) -> LinkStateConfig {
        let config = try ProbeExport.decodeConfig(LinkStateConfig.self, from: json)
        try config.validate()
        return config
    }

    @Test func defaultsIgnoreLoopbackAndReadTheRealSysfs() throws {
        let config = try decode("{}")
        #expect(config.ignore.map(\.pattern) == ["lo"])
        #expect(config.require.isEmpty && config.metered.isEmpty)
        #expect(config.sysfsRoot == "/sys")
    }

    @Test func readsEveryKey() throws {
        let config = try decode(
            #"{"ignore": ["veth*"], "require": ["eth0", "wlan*"], "metered": ["wwan*"], "sysfs_root": "/tmp/sys"}"#)
        #expect(config.ignore.map(\.pattern) == ["veth*"])
        #expect(config.require.map(\.pattern) == ["eth0", "wlan*"])
        #expect(config.metered.map(\.pattern) == ["wwan*"])
        #expect(config.sysfsRoot == "/tmp/sys")
    }

    @Test(arguments: [
        (#"{"ignroe": ["lo"]}"#, "ignroe"),
        (#"{"require": "eth0"}"#, "require"),
        (#"{"metered": [1]}"#, "metered[0]"),
        (#"{"ignore": ["eth0", ""]}"#, "ignore[1]"),
        (#"{"sysfs_root": "sys"}"#, "sysfs_root"),
    ])
    func rejectsBadValuesWithTheirPath(json: String, path: String) {
        #expect {
            _ = try decode(json)
        } throws: { error in
            (error as? ProbeConfigError)?.path.description == path
        }
    }
}
