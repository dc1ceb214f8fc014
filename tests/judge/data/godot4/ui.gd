extends Control

@onready var start_button: Button = $VBox/StartButton
@onready var score_label: Label = %ScoreLabel
@onready var message: Label = $Message
@onready var options: OptionButton = $VBox/Options

var score := 0


func _ready() -> void:
	start_button.pressed.connect(_on_start_pressed)
	options.item_selected.connect(func(index: int) -> void: print("selected ", index))
	update_score(0)


func update_score(value: int) -> void:
	score = value
	score_label.text = str(score)


func show_message(text: String) -> void:
	message.text = text
	message.show()
	await get_tree().create_timer(2.0).timeout
	message.hide()


func show_game_over() -> void:
	show_message("Game Over")
	await get_tree().create_timer(1.0).timeout
	start_button.show()


func _on_start_pressed() -> void:
	start_button.hide()
	get_tree().change_scene_to_file("res://scenes/level_1.tscn")


func set_volume(bus_name: String, linear: float) -> void:
	var bus := AudioServer.get_bus_index(bus_name)
	AudioServer.set_bus_volume_db(bus, linear_to_db(linear))


func toggle_fullscreen() -> void:
	if DisplayServer.window_get_mode() == DisplayServer.WINDOW_MODE_FULLSCREEN:
		DisplayServer.window_set_mode(DisplayServer.WINDOW_MODE_WINDOWED)
	else:
		DisplayServer.window_set_mode(DisplayServer.WINDOW_MODE_FULLSCREEN)


func fill_options(names: PackedStringArray) -> void:
	options.clear()
	for n in names:
		options.add_item(n)


func fade_in(node: CanvasItem, duration: float = 0.5) -> void:
	node.modulate.a = 0.0
	var tween := create_tween()
	tween.tween_property(node, "modulate:a", 1.0, duration)


func pulse(node: Control) -> void:
	var tween := create_tween().set_loops(3)
	tween.tween_property(node, "scale", Vector2(1.1, 1.1), 0.1)
	tween.tween_property(node, "scale", Vector2.ONE, 0.1)


func _unhandled_input(event: InputEvent) -> void:
	if event.is_action_pressed("ui_cancel"):
		get_tree().paused = not get_tree().paused
		get_viewport().set_input_as_handled()


func set_size_from_viewport() -> void:
	var vp: Viewport = get_viewport()
	size = vp.get_visible_rect().size
	custom_minimum_size = Vector2(320, 180)
