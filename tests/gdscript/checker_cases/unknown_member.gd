extends Control
## A member the receiver's Godot 4 class lacks, on a type the code states.

@onready var label: Label = $Label


func _ready() -> void:
	label.text = "ok"
	print(label.get_stylebox("normal"))  # expect: unknown-member
	get_tree().set_input_as_handled()  # expect: unknown-member
	print(OS.get_unix_time(), get_tree().is_network_server())  # expect: unknown-member
	await get_tree().process_frame
	label.add_theme_color_override("font_color", Color.RED)
	var d := {"collider": null}
	print(d.collider)
