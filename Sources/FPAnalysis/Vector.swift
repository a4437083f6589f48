/// A point or vector in metres (2-D positioning uses z = 0).
package struct Vec3: Sendable, Equatable, Hashable {
    package var x: Double, y: Double, z: Double
    package init(_ x: Double, _ y: Double, _ z: Double = 0) {
        self.x = x
        self.y = y
        self.z = z
    }
    package static func + (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x + b.x, a.y + b.y, a.z + b.z) }
    package static func - (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x - b.x, a.y - b.y, a.z - b.z) }
    package static func * (s: Double, a: Vec3) -> Vec3 { Vec3(s * a.x, s * a.y, s * a.z) }
    package func dot(_ b: Vec3) -> Double { x * b.x + y * b.y + z * b.z }
    package func cross(_ b: Vec3) -> Vec3 { Vec3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x) }
    package var length: Double { dot(self).squareRoot() }
}
