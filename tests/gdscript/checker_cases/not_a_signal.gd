extends Node
## A signal named by string must exist on the class; a Godot 3 signal name gets its Godot 4 one.

signal done


func _ready() -> void:
	emit_signal("done")
	emit_signal("finished_loading")  # expect: not-a-signal
	connect("tree_exited", _on_exit)
	get_tree().connect("idle_frame", _on_exit)


func _on_exit() -> void:
	pass


func _use_method_as_signal() -> void:
	_on_exit.emit()  # expect: not-a-signal
	done.emit()
