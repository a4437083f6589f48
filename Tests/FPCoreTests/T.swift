import Testing
@testable import FPCore
@Test func placeholder() { #expect(Revision("1-abc")?.generation == 1) }
