import BandwidthProbe
import CPathwatchProbe
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

/// The probe as the host sees it: through the exported C descriptor only.
@Suite(.onItsOwnThread) struct BandwidthPluginABITests {
    var descriptor: pw_probe_descriptor {
        bandwidthProbeDescriptor().assumingMemoryBound(to: pw_probe_descriptor.self).pointee
    }

    func create(_ json: String) -> (instance: UnsafeMutableRawPointer?, path: String, message: String) {
        var instance: UnsafeMutableRawPointer?
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        let status = json.withCString { descriptor.create(UnsafePointer($0), json.utf8.count, &instance, &error) }
        let path = withUnsafeBytes(of: error.path) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let message = withUnsafeBytes(of: error.message) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return (status == PW_OK ? instance : nil, path, message)
    }

    @Test func describesItself() {
        let d = descriptor
        #expect(d.abi_version == PW_PROBE_ABI_VERSION)
        #expect(String(cString: d.name) == "bandwidth")
        #expect(d.flags == 0)
        #expect(d.event_fd == nil)
    }

    @Test func configErrorsCrossTheBoundaryWithTheirPath() {
        let bad = create(#"{"speed": {"eth0": -1}}"#)
        #expect(bad.instance == nil)
        #expect(bad.path == "speed.eth0")
        #expect(bad.message.contains("above 0"))
    }

    @Test func samplesThroughTheEmitter() throws {
        let files = try FakeKernelFiles()
        try files.write([
            FakeKernelFiles.Interface(name: "eth0", index: 2), FakeKernelFiles.Interface(name: "eth1", index: 3),
        ])
        // Through the exported descriptor, with the SDK testing library's copying emitter.
        let probe = try ProbeTester(
            descriptor: bandwidthProbeDescriptor().assumingMemoryBound(to: pw_probe_descriptor.self),
            config: #"{"source": "procfs", "procfs_path": "\#(files.procfsPath)", "sysfs_path": "\#(files.sysfsPath)"}"#
        )
        let first = try probe.sample()
        #expect(first.map(\.key) == ["eth0", "eth1"])
        #expect(first.allSatisfy { $0.state == .ok && $0.metrics.isEmpty })
        let second = try probe.sample()
        #expect(second.count == 2)
        #expect(second.first?.metrics.count == 9, "eight rates and window_ms, no utilisation without a speed")
    }
}
