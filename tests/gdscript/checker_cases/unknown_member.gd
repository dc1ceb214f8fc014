extends Control
## A member the receiver's Godot 4 class lacks, on a type the code states.

@onready var label: Label = $Label


func _ready() -> void:
	label.text = "ok"
	label.percent_visible = 0.5  # expect: unknown-member
	await get_tree().idle_frame  # expect: unknown-member
	await get_tree().process_frame
	label.add_theme_color_override("font_color", Color.RED)
	var d := {"collider": null}
	print(d.collider)
