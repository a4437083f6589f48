import FPCore
import Foundation

/// Accelerometer, gyroscope and magnetometer through the kernel's IIO sysfs
/// interface (`/sys/bus/iio/devices/iio:deviceN/in_accel_x_raw` …).
///
/// Value = (raw + offset) × scale, per the IIO ABI. Units as stored: acceleration
/// m/s², angular velocity rad/s (both IIO's own), magnetic field µT (IIO gives
/// gauss; ×100 to match the iOS app's CoreMotion microtesla).
package struct IIOMotionSensors: MotionSensorReader {
    /// Injectable so tests read a fake sysfs tree.
    package let root: String

    package init(root: String = "/sys/bus/iio/devices") { self.root = root }

    enum Kind: String, CaseIterable {
        case accel, anglvel, magn
        var factor: Double { self == .magn ? 100 : 1 }
    }

    package func read() -> MotionReading {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(atPath: root) else {
            return MotionReading(status: unavailable("no IIO bus at \(root) (kernel without industrial-I/O sensors)"))
        }
        let devices = entries.filter { $0.hasPrefix("iio:device") }.sorted()
        if devices.isEmpty { return MotionReading(status: unavailable("no IIO devices (no motion sensors on this machine)")) }
        var found: [Kind: (MotionReading.Vector3, String)] = [:]
        var problems: [String] = []
        for device in devices {
            let dir = "\(root)/\(device)"
            for kind in Kind.allCases where found[kind] == nil {
                switch vector(kind, in: dir) {
                case .success(let v?): found[kind] = (v, device)
                case .success(nil): break
                case .failure(let e): problems.append("\(device) \(kind.rawValue): \(e.description)")
                }
            }
        }
        var reading = MotionReading(acc: found[.accel]?.0, gyro: found[.anglvel]?.0, mag: found[.magn]?.0,
                                    status: ProviderStatus(status: .ok, source: "iio"))
        let missing = Kind.allCases.filter { found[$0] == nil }.map(\.rawValue)
        if found.isEmpty {
            let why = problems.first ?? "the IIO devices have no accelerometer, gyroscope or magnetometer channels"
            reading.status = unavailable(why)
        } else {
            let sources = Kind.allCases.compactMap { k in found[k].map { "\(k.rawValue)=\($0.1)" } }
            reading.status = ProviderStatus(status: .ok, source: "iio:" + sources.joined(separator: ","),
                                            reason: missing.isEmpty ? nil : "not present: \(missing.joined(separator: ", "))")
        }
        return reading
    }

    struct ReadError: Error, CustomStringConvertible { let description: String }

    /// x/y/z of one channel type in one device; nil when the device lacks it.
    func vector(_ kind: Kind, in dir: String) -> Result<MotionReading.Vector3?, ReadError> {
        let k = kind.rawValue
        guard FileManager.default.fileExists(atPath: "\(dir)/in_\(k)_x_raw") else { return .success(nil) }
        var axes: [Double] = []
        for axis in ["x", "y", "z"] {
            guard let raw = number("\(dir)/in_\(k)_\(axis)_raw") else {
                return .failure(ReadError(description: "in_\(k)_\(axis)_raw unreadable or not a number"))
            }
            // Per-axis scale/offset override the shared one (both layouts exist in drivers).
            let scale = number("\(dir)/in_\(k)_\(axis)_scale") ?? number("\(dir)/in_\(k)_scale") ?? 1
            let offset = number("\(dir)/in_\(k)_\(axis)_offset") ?? number("\(dir)/in_\(k)_offset") ?? 0
            axes.append((raw + offset) * scale * kind.factor)
        }
        return .success(MotionReading.Vector3(x: axes[0], y: axes[1], z: axes[2]))
    }

    func number(_ path: String) -> Double? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let d = Double(text), d.isFinite else { return nil }
        return d
    }

    func unavailable(_ reason: String) -> ProviderStatus {
        ProviderStatus(status: .unavailable, source: "iio", reason: reason)
    }
}
