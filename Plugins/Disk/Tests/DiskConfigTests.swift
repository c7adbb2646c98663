import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchTestSupport
import Testing

@testable import DiskProbe

@Suite(.onItsOwnThread) struct DiskConfigTests {
    @Test func defaults() throws {
        let config = try DiskFixtures.config("{}")
        #expect(config.mounts == .all)
        #expect(config.ignore.isEmpty)
        #expect(config.warnUsedPercent == 85)
        #expect(config.critUsedPercent == 95)
        #expect(config.minFree == nil)
        #expect(config.warnInodesUsedPercent == 85)
        #expect(config.critInodesUsedPercent == 95)
        #expect(config.timeout == .seconds(2))
        try config.validate()
    }

    @Test func everyKey() throws {
        let config = try DiskFixtures.config(
            """
            {"mounts": ["/", "/var/"], "ignore": ["/run/*"], "expect_readonly": ["/boot/efi"],
             "warn_used_percent": 70, "crit_used_percent": 90.5, "min_free": "600MB",
             "warn_inodes_used_percent": 60, "crit_inodes_used_percent": 80, "timeout": "500ms"}
            """)
        try config.validate()
        #expect(config.listedMountPoints == ["/", "/var"])
        #expect(
            try DiskFixtures.config(#"{"mounts": ["//srv//data/./", "/"]}"#).listedMountPoints == ["/srv/data", "/"])
        #expect(config.ignore == [Glob("/run/*")])
        #expect(config.expectReadOnly == [Glob("/boot/efi")])
        #expect(config.critUsedPercent == 90.5)
        #expect(config.minFree == WrittenSize(bytes: 600_000_000, text: "600 MB"))
        #expect(config.timeout == .milliseconds(500))
        #expect(try DiskFixtures.config(#"{"mounts": "*"}"#).mounts == .all)
    }

    @Test(arguments: [
        (#"{"mounts": "/"}"#, "mounts", "expected \"*\" or a list of mount points, found \"/\""),
        (#"{"mounts": [3]}"#, "mounts[0]", "expected a string, found a number"),
        (#"{"mounts": []}"#, "mounts", "lists no mount point; use \"*\" for every filesystem"),
        (#"{"mounts": ["/", "var"]}"#, "mounts[1]", "expected an absolute path, found \"var\""),
        (#"{"mounts": ["/var", "/var/"]}"#, "mounts[1]", "\"/var/\" is listed twice"),
        (#"{"mounts": ["/", "//"]}"#, "mounts[1]", "\"//\" is listed twice"),
        (#"{"warn_used_percent": 101}"#, "warn_used_percent", "expected a percentage from 0 to 100, found 101"),
        (#"{"crit_used_percent": -1}"#, "crit_used_percent", "expected a percentage from 0 to 100, found -1"),
        (#"{"warn_used_percent": "85"}"#, "warn_used_percent", "expected a number, found a string"),
        (#"{"warn_used_percent": 96}"#, "warn_used_percent", "must not exceed crit_used_percent (95), found 96"),
        (
            #"{"warn_inodes_used_percent": 90, "crit_inodes_used_percent": 80}"#, "warn_inodes_used_percent",
            "must not exceed crit_inodes_used_percent (80), found 90"
        ),
        (
            #"{"crit_inodes_used_percent": 200}"#, "crit_inodes_used_percent",
            "expected a percentage from 0 to 100, found 200"
        ),
        (
            #"{"min_free": "lots"}"#, "min_free",
            "expected a size: a byte count or a string with a unit, like \"600MB\" or \"1.5GiB\""
        ),
        (#"{"timeout": "0s"}"#, "timeout", "expected a duration above zero, found 0ns"),
        (#"{"timeout": 2}"#, "timeout", "expected a duration with a unit, like \"250ms\", \"5s\" or \"2m\""),
        (#"{"ignore": "/run"}"#, "ignore", "expected an array, found a string"),
        (#"{"mount": ["/"]}"#, "mount", ""),
    ])
    func rejectsBadConfigThroughTheABIWithItsPath(json: String, path: String, message: String) throws {
        let error = try #require(try createError(json))
        #expect(error.path == path)
        if message.isEmpty {
            #expect(error.message.hasPrefix("unknown key \"mount\""))
        } else {
            #expect(error.message == message)
        }
    }

    @Test func acceptsAGoodConfigThroughTheABI() throws {
        #expect(try createError(#"{"mounts": ["/"], "min_free": "1GiB"}"#) == nil)
    }

    /// Creates an instance through the exported C descriptor, as the agent does; returns the
    /// error the plug-in reported, or nil when it accepted the config (the instance is destroyed).
    func createError(_ json: String) throws -> (path: String, message: String)? {
        let descriptor = diskProbeDescriptor().assumingMemoryBound(to: pw_probe_descriptor.self).pointee
        #expect(descriptor.abi_version == PW_PROBE_ABI_VERSION)
        #expect(String(cString: descriptor.name) == "disk")
        let create = try #require(descriptor.create)
        var instance: UnsafeMutableRawPointer?
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        let status = json.withCString { create($0, strlen($0), &instance, &error) }
        if status == PW_OK {
            descriptor.destroy?(instance)
            return nil
        }
        let path = withUnsafeBytes(of: error.path) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let message = withUnsafeBytes(of: error.message) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return (path, message)
    }
}
