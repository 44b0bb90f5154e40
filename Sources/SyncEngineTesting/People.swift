public import SyncEngine
import SyncProtocol

/// People of the test scenarios: team t-1 (ana, ben; supervisor sam), team t-2 (carla), office (dora, adam).
public enum People {
    public static let ana = Principal(userId: "u-ana", role: .field, teamId: "t-1", deviceId: "dev-ana")
    public static let anaTablet = Principal(userId: "u-ana", role: .field, teamId: "t-1", deviceId: "dev-ana-tablet")
    public static let ben = Principal(userId: "u-ben", role: .field, teamId: "t-1", deviceId: "dev-ben")
    public static let carla = Principal(userId: "u-carla", role: .field, teamId: "t-2", deviceId: "dev-carla")
    public static let sam = Principal(userId: "u-sam", role: .supervisor, teamId: "t-1", deviceId: "dev-sam", teamMemberIds: ["u-ana", "u-ben"])
    public static let dora = Principal(userId: "u-dora", role: .dispatcher, deviceId: "web:u-dora")
    public static let adam = Principal(userId: "u-adam", role: .admin, deviceId: "web:u-adam")
}
