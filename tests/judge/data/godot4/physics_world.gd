extends Node2D

@onready var ray: RayCast2D = $RayCast2D
@onready var agent: NavigationAgent2D = $NavigationAgent2D
@onready var area: Area2D = $DetectionArea


func _ready() -> void:
	area.body_entered.connect(_on_body_entered)
	area.body_exited.connect(_on_body_exited)


func _on_body_entered(body: Node2D) -> void:
	if body.is_in_group("player"):
		print("player entered")


func _on_body_exited(body: Node2D) -> void:
	if body is CharacterBody2D:
		print("left: ", body.name)


func first_hit(from: Vector2, to: Vector2) -> Dictionary:
	var space := get_world_2d().direct_space_state
	var query := PhysicsRayQueryParameters2D.create(from, to)
	query.exclude = [self]
	return space.intersect_ray(query)


func is_blocked() -> bool:
	ray.force_raycast_update()
	return ray.is_colliding()


func set_target(target: Vector2) -> void:
	agent.target_position = target


func next_step() -> Vector2:
	if agent.is_navigation_finished():
		return global_position
	return agent.get_next_path_position()


func apply_push(body: RigidBody2D, impulse: Vector2) -> void:
	body.apply_central_impulse(impulse)


func shapes_at(point: Vector2) -> Array[Dictionary]:
	var params := PhysicsPointQueryParameters2D.new()
	params.position = point
	params.collide_with_areas = true
	return get_world_2d().direct_space_state.intersect_point(params)


func set_layers(body: CollisionObject2D, layer: int) -> void:
	body.collision_layer = 0
	body.set_collision_layer_value(layer, true)
	body.set_collision_mask_value(1, true)
