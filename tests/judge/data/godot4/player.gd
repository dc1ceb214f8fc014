class_name Player
extends CharacterBody2D

signal health_changed(new_value: int)
signal died

const SPEED := 300.0
const JUMP_VELOCITY := -420.0

@export var max_health: int = 5
@export_range(0.0, 1.0) var friction: float = 0.2
@onready var sprite: AnimatedSprite2D = $AnimatedSprite2D
@onready var hurt_timer: Timer = %HurtTimer

var health: int = max_health:
	set(value):
		health = clampi(value, 0, max_health)
		health_changed.emit(health)

var gravity: float = ProjectSettings.get_setting("physics/2d/default_gravity")


func _ready() -> void:
	hurt_timer.timeout.connect(_on_hurt_timer_timeout)
	health = max_health


func _physics_process(delta: float) -> void:
	if not is_on_floor():
		velocity.y += gravity * delta
	if Input.is_action_just_pressed("jump") and is_on_floor():
		velocity.y = JUMP_VELOCITY
	var direction := Input.get_axis("move_left", "move_right")
	if direction:
		velocity.x = direction * SPEED
	else:
		velocity.x = move_toward(velocity.x, 0, SPEED * friction)
	move_and_slide()


func _process(_delta: float) -> void:
	if velocity.x != 0:
		sprite.flip_h = velocity.x < 0
		sprite.play(&"run")
	else:
		sprite.play(&"idle")


func take_damage(amount: int) -> void:
	if not hurt_timer.is_stopped():
		return
	health -= amount
	hurt_timer.start()
	if health == 0:
		died.emit()


func _on_hurt_timer_timeout() -> void:
	sprite.modulate = Color.WHITE


func get_collisions() -> Array[KinematicCollision2D]:
	var result: Array[KinematicCollision2D] = []
	for i in get_slide_collision_count():
		result.append(get_slide_collision(i))
	return result


func knockback(from: Vector2, strength: float) -> void:
	velocity = (global_position - from).normalized() * strength
	move_and_slide()


func heal(amount: int) -> void:
	health += amount


func is_dead() -> bool:
	return health <= 0


func snap_to_grid(cell: int) -> void:
	global_position = global_position.snapped(Vector2(cell, cell))
