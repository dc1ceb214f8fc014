extends Node3D

@export var player_scene: PackedScene
@onready var sun: DirectionalLight3D = $Sun
@onready var env: WorldEnvironment = $WorldEnvironment
@onready var anim: AnimationPlayer = $AnimationPlayer


func _ready() -> void:
	var player := player_scene.instantiate() as CharacterBody3D
	add_child(player)
	player.global_position = $Spawn.global_position
	anim.animation_finished.connect(_on_animation_finished)


func _on_animation_finished(anim_name: StringName) -> void:
	if anim_name == &"intro":
		anim.play(&"loop")


func set_time_of_day(hours: float) -> void:
	sun.rotation_degrees.x = -90.0 + hours / 24.0 * 360.0


func load_next(path: String) -> void:
	ResourceLoader.load_threaded_request(path)
	while ResourceLoader.load_threaded_get_status(path) == ResourceLoader.THREAD_LOAD_IN_PROGRESS:
		await get_tree().process_frame
	get_tree().change_scene_to_packed(ResourceLoader.load_threaded_get(path))


func set_fog(enabled: bool) -> void:
	env.environment.fog_enabled = enabled


func spawn_mesh(at: Vector3) -> MeshInstance3D:
	var mesh := MeshInstance3D.new()
	mesh.mesh = BoxMesh.new()
	add_child(mesh)
	mesh.position = at
	return mesh


func look_from(camera: Camera3D, target: Vector3) -> void:
	camera.look_at(target, Vector3.UP)


func ray_from_mouse(camera: Camera3D) -> Dictionary:
	var mouse := get_viewport().get_mouse_position()
	var from := camera.project_ray_origin(mouse)
	var to := from + camera.project_ray_normal(mouse) * 100.0
	return get_world_3d().direct_space_state.intersect_ray(PhysicsRayQueryParameters3D.create(from, to))


func quit_game() -> void:
	get_tree().quit()
