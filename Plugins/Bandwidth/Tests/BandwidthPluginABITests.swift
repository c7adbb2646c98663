import BandwidthProbe
import CPathwatchProbe
import Testing

/// The probe as the host sees it: through the exported C descriptor only.
@Suite struct BandwidthPluginABITests {
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
        try files.write([FakeKernelFiles.Interface(name: "eth0", index: 2), FakeKernelFiles.Interface(name: "eth1", index: 3)])
        let made = create(#"{"source": "procfs", "procfs_path": "\#(files.procfsPath)", "sysfs_path": "\#(files.sysfsPath)"}"#)
        let instance = try #require(made.instance, "\(made.path): \(made.message)")
        defer { descriptor.destroy(instance) }

        final class Collected { var items: [(key: String, state: Int32, message: String, metrics: Int)] = [] }
        let collected = Collected()
        var emitter = pw_emitter(
            struct_size: MemoryLayout<pw_emitter>.size, context: Unmanaged.passUnretained(collected).toOpaque(),
            emit: { context, observation in
                guard let context, let o = observation?.pointee else { return PW_ERR }
                Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().items.append(
                    (String(cString: o.key), o.state, String(cString: o.message), o.metric_count))
                return PW_OK
            })
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        #expect(descriptor.sample(instance, &emitter, &error) == PW_OK)
        #expect(collected.items.map(\.key) == ["eth0", "eth1"])
        #expect(collected.items.allSatisfy { $0.state == PW_STATE_OK.rawValue && $0.metrics == 0 })
        #expect(descriptor.sample(instance, &emitter, &error) == PW_OK)
        #expect(collected.items.count == 4)
        #expect(collected.items[2].metrics == 9, "eight rates and window_ms, no utilisation without a speed")
    }
}
