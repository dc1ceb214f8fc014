extends Node
## Whatever the receiver, a member no Godot 4 class has that the converter renames.


func apply(mat, node) -> void:
	mat.set_shader_param("strength", 1.0)  # expect: godot3-member
	node.set("rect_size", Vector2.ONE)  # expect: godot3-member
	node.call_deferred("set_shader_param", "x", 1)  # expect: godot3-member
	mat.set_shader_parameter("strength", 1.0)
	print(node.custom_value)
	var enemy = load("res://enemy.tscn").instance()  # expect: godot3-member
	var kids: Array = enemy.get_children()
	if kids.empty():  # expect: godot3-member
		print(node.window_title, node.group)
	var box := BoxShape3D.new()
	box.extents = Vector3.ONE  # expect: godot3-member
	print(box.extents.x)  # expect: godot3-member
