import FPCore
import FPTestSupport
import Foundation
import Testing
@testable import FPLinuxRadios

@Suite struct IIOMotionSensorsTests {
    /// A fake /sys/bus/iio/devices: files with the kernel's layout and content (value + newline).
    func tree(_ files: [String: String]) throws -> String {
        let root = try makeTemporaryFolder("iio").path
        for (path, content) in files {
            let full = "\(root)/\(path)"
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try (content + "\n").write(toFile: full, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func readsAllThreeWithScaleAndOffset() throws {
        let root = try tree([
            // An accelerometer with a shared scale (m/s² per LSB), as the st_accel driver exposes it.
            "iio:device0/name": "lis3dh",
            "iio:device0/in_accel_x_raw": "-120", "iio:device0/in_accel_y_raw": "40", "iio:device0/in_accel_z_raw": "16350",
            "iio:device0/in_accel_scale": "0.000598",
            // A gyroscope with per-axis scales and an offset.
            "iio:device1/in_anglvel_x_raw": "10", "iio:device1/in_anglvel_y_raw": "-20", "iio:device1/in_anglvel_z_raw": "0",
            "iio:device1/in_anglvel_x_scale": "0.001", "iio:device1/in_anglvel_y_scale": "0.002",
            "iio:device1/in_anglvel_z_scale": "0.003", "iio:device1/in_anglvel_offset": "5",
            // A magnetometer in gauss: stored in µT.
            "iio:device2/in_magn_x_raw": "100", "iio:device2/in_magn_y_raw": "-50", "iio:device2/in_magn_z_raw": "200",
            "iio:device2/in_magn_scale": "0.0015",
        ])
        let r = IIOMotionSensors(root: root).read()
        let acc = try #require(r.acc)
        #expect(abs(acc.x - (-0.07176)) < 1e-9 && abs(acc.z - 9.7773) < 1e-4)
        #expect(r.gyro == MotionReading.Vector3(x: 0.015, y: -0.03, z: 0.015))
        let mag = try #require(r.mag)
        #expect(abs(mag.x - 15) < 1e-9 && abs(mag.y + 7.5) < 1e-9 && abs(mag.z - 30) < 1e-9)
        #expect(r.status == ProviderStatus(status: .ok, source: "iio:accel=iio:device0,anglvel=iio:device1,magn=iio:device2"))
    }

    @Test func partialSensorsSayWhatIsMissing() throws {
        let root = try tree(["iio:device0/in_accel_x_raw": "1", "iio:device0/in_accel_y_raw": "2", "iio:device0/in_accel_z_raw": "3"])
        let r = IIOMotionSensors(root: root).read()
        #expect(r.acc == MotionReading.Vector3(x: 1, y: 2, z: 3) && r.gyro == nil && r.mag == nil)
        #expect(r.status.status == .ok && r.status.reason == "not present: anglvel, magn")
    }

    @Test func absentOrBrokenIsUnavailableWithReason() throws {
        let none = IIOMotionSensors(root: "/nonexistent/iio").read()
        #expect(none.status.status == .unavailable && none.acc == nil)
        #expect(none.status.reason == "no IIO bus at /nonexistent/iio (kernel without industrial-I/O sensors)")
        let empty = IIOMotionSensors(root: try tree(["other/file": "x"])).read()
        #expect(empty.status.reason == "no IIO devices (no motion sensors on this machine)")
        let broken = IIOMotionSensors(root: try tree([
            "iio:device0/in_accel_x_raw": "1", "iio:device0/in_accel_y_raw": "garbage", "iio:device0/in_accel_z_raw": "3",
        ])).read()
        #expect(broken.acc == nil && broken.status.status == .unavailable)
        #expect(broken.status.reason == "iio:device0 accel: in_accel_y_raw unreadable or not a number")
        let other = IIOMotionSensors(root: try tree(["iio:device0/in_voltage0_raw": "512"])).read()
        #expect(other.status.reason == "the IIO devices have no accelerometer, gyroscope or magnetometer channels")
    }
}
